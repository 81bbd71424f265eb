// main() for llamafit_unit_system: the sampler tests run Qt event loops (QSignalSpy::wait),
// which need a QCoreApplication; no GUI platform is involved.

#include <QCoreApplication>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

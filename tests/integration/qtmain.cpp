// main() for llamafit_integration_system: ServerProcess and ServerProbe run on Qt's event
// loop (QSignalSpy::wait), which needs a QCoreApplication; no GUI platform is involved.

#include <QCoreApplication>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

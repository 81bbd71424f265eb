// main() for llamafit_windows_launch: ServerProcess runs on Qt's event loop (QSignalSpy::wait),
// which needs a QCoreApplication; no window is involved.

#include <QCoreApplication>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

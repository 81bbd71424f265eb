// GoogleTest main for the GUI tests: one QApplication for the whole run (offscreen unless the
// environment picks a platform), QStandardPaths in test mode so nothing touches the user's
// settings, and a fixed organisation/application name for QSettings.
#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("LlamaFitTests"));
    QApplication::setApplicationName(QStringLiteral("LlamaFitGuiTests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// llamafit: the desktop app. Parses the command line, loads the saved settings, and wires the
// session and the main window; everything else lives in llamafit_ui.
#include "core/machine/machineprofile.h"
#include "core/system/heaptuning.h"
#include "ui/appicon.h"
#include "ui/appsettings.h"
#include "ui/mainwindow.h"
#include "ui/sizingsession.h"
#include "ui/theme.h"
#include "ui/translation.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>

#include <cstdio>

int main(int argc, char* argv[]) {
    llamafit::keepFreedHeapForReuse();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("LlamaFit"));
    QApplication::setApplicationName(QStringLiteral("LlamaFit"));
    QApplication::setApplicationVersion(QStringLiteral(LLAMAFIT_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("llamafit"));
    QApplication::setWindowIcon(llamafit::appIcon());

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Plan llama-server's memory, launch it, watch it run."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption model({QStringLiteral("m"), QStringLiteral("model")},
                                   QStringLiteral("Open this GGUF file or built-in card id."),
                                   QStringLiteral("MODEL"));
    const QCommandLineOption machine(QStringLiteral("machine"),
                                     QStringLiteral("Plan for this built-in machine profile id."),
                                     QStringLiteral("ID"));
    const QCommandLineOption language(
        QStringLiteral("lang"), QStringLiteral("User interface language: en or ja."), QStringLiteral("LANG"));
    const QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("system, light or dark."),
                                   QStringLiteral("THEME"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Write a PNG of the window once it is drawn, then exit."), QStringLiteral("FILE"));
    parser.addOptions({model, machine, language, theme, screenshot});
    parser.process(app);

    QSettings settings;
    llamafit::AppSettingsLoad loaded = llamafit::loadAppSettings(settings);
    llamafit::AppSettings& values = loaded.settings;
    if (parser.isSet(model)) {
        values.lastModel = parser.value(model);
    }
    if (parser.isSet(machine)) {
        values.machineId = parser.value(machine);
        values.carveOutBytes.reset();
    }
    if (parser.isSet(language)) {
        values.language = parser.value(language);
    }
    if (parser.isSet(theme)) {
        values.theme = llamafit::themeChoiceFromName(parser.value(theme)).value_or(values.theme);
    }
    llamafit::installTranslation(values.language);
    llamafit::applyTheme(values.theme);

    llamafit::SizingSession session(llamafit::chooseStartMachine(std::nullopt));
    llamafit::MainWindow window(&session, &settings, values);
    window.show();
    if (!loaded.message.isEmpty()) {
        window.showStatus(loaded.message);
    }
    if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        QTimer::singleShot(1500, &window, [&window, file] {
            const bool saved = window.grab().save(file, "PNG");
            std::fprintf(saved ? stdout : stderr, "%s %s\n", saved ? "wrote" : "could not write",
                         qPrintable(file));
            QApplication::exit(saved ? 0 : 1);
        });
    }
    return QApplication::exec();
}

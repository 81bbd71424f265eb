// llamafit: the desktop app. Parses the command line and wires the session and main window.
#include "core/machine/machineprofile.h"
#include "ui/mainwindow.h"
#include "ui/sizingsession.h"

#include <QApplication>

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("LlamaFit"));
    QApplication::setApplicationName(QStringLiteral("LlamaFit"));

    llamafit::SizingSession session(llamafit::chooseStartMachine(std::nullopt));
    llamafit::MainWindow window(&session);
    window.show();
    return QApplication::exec();
}

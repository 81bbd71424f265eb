// The main window: panels composed and wired; see mainwindow.h.
#include "ui/mainwindow.h"

#include "ui/sizingsession.h"

namespace llamafit {

MainWindow::MainWindow(SizingSession* session, QWidget* parent) : QMainWindow(parent), m_session(session) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("LlamaFit"));
}

} // namespace llamafit

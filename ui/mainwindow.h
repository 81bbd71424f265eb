#pragma once
// MainWindow: composes the panels around one SizingSession and wires their signals. It does
// not compute: every number comes from the session (core/sizing) or the launcher
// (core/system). Window geometry and dock layout persist through QSettings.
// Thread: GUI thread.

#include <QMainWindow>

namespace llamafit {

class SizingSession;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    // The session is owned by the caller and outlives the window.
    explicit MainWindow(SizingSession* session, QWidget* parent = nullptr);

    SizingSession* session() const { return m_session; }

  private:
    SizingSession* m_session;
};

} // namespace llamafit

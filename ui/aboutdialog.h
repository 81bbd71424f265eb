#pragma once
// AboutDialog: LlamaFit's version, the versions of Qt and QCustomPlot it runs with, and the
// selected llama-server's version as its probe reported it, with the licence line and where
// the sizing rules come from. Used by MainWindow's Help menu. Thread: GUI thread.

#include <QDialog>

namespace llamafit {

class AboutDialog : public QDialog {
    Q_OBJECT
  public:
    // `serverVersion`: the launch panel's probe text ("llama-server 0.7.0 (build 11669)"), or
    // empty when no binary was probed.
    AboutDialog(const QString& serverVersion, QWidget* parent = nullptr);

    // The text shown, for tests and the clipboard.
    QString versionsText() const { return m_versionsText; }

  private:
    QString m_versionsText;
};

} // namespace llamafit

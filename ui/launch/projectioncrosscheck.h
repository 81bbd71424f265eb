#pragma once
// ProjectionCrossCheck: llama.cpp's own projection of the session's settings, next to LlamaFit's,
// kept current in the background. After the model or the settings change and stay unchanged for
// kDebounceMs, it runs the installed llama-fit-params (`--fit-print on`, core/server/projectioncheck.h)
// on the model file as a QProcess; a change while it runs kills that run and starts over, so a
// slider drag never waits on it and never sees a stale answer. The build's tag comes from one
// `--version` run per tool. The launch panel shows the rows ("llama.cpp b11669 projects X MiB,
// LlamaFit Y MiB") and flags a device over 1 % apart: a build newer than LlamaFit's rules.
// Owns: its processes (killed and reaped when it is destroyed: no orphan). Does not own the session.
// Thread: GUI thread.

#include "core/server/projectioncheck.h"

#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QTimer>

#include <optional>
#include <vector>

namespace llamafit {

class SizingSession;

class ProjectionCrossCheck : public QObject {
    Q_OBJECT
  public:
    static constexpr int kDebounceMs = 600;

    enum class State {
        Off,     // no tool, a built-in card, or settings the estimate refuses: message() says which
        Waiting, // a change is pending (debounce) or the tool is running
        Done,    // rows() hold the comparison for the current settings
        Failed,  // the tool failed: message() holds the end of its log
    };

    explicit ProjectionCrossCheck(SizingSession* session, QObject* parent = nullptr);
    ~ProjectionCrossCheck() override;

    // The llama-fit-params to run; empty switches the check off.
    void setTool(const QString& program);
    QString tool() const { return m_tool; }

    // llama-fit-params next to `serverBinary` (llama.cpp installs them together), else
    // $LLAMAFIT_LLAMA_FIT_PARAMS, else on PATH, else empty.
    static QString toolBesideServer(const QString& serverBinary);

    State state() const { return m_state; }
    const std::vector<ProjectionCheckRow>& rows() const { return m_rows; }
    QString build() const { return m_build; } // "b11669", empty until the tool answered --version
    QString message() const { return m_message; }
    // The running llama-fit-params' process id, 0 when none runs.
    qint64 runningProcessId() const { return m_process != nullptr ? m_process->processId() : 0; }

  signals:
    void changed(); // state, rows or message

  private:
    void schedule();
    void start();
    void startVersionProbe();
    void startProjection();
    void onProjectionFinished(int exitCode, QProcess::ExitStatus status);
    void stopRunning();
    void settle(State state, QString message = {});

    SizingSession* m_session;
    QString m_tool;
    QString m_build;
    QString m_buildOfTool; // the tool m_build was read from
    QTimer m_debounce;
    QProcess* m_process = nullptr; // the running --version or projection, if any
    State m_state = State::Off;
    std::vector<ProjectionCheckRow> m_rows;
    QString m_message;
};

} // namespace llamafit

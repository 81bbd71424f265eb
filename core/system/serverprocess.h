#pragma once
// ServerProcess: one llama-server child process as an event-driven state machine (the Kate
// LSP client's shape). Used by `llamafit-cli launch` and, later, the GUI's launcher. Starts
// the server with an argv list (never a shell), watches /health, keeps its log in fixed
// memory (BoundedLog, core/server/boundedlog.h: startup, every buffer/allocation/error line and
// the recent output, at most kBoundedLogCapBytes however long it runs), and
// turns every way the launch can end badly into a named LaunchFailure
// (core/server/launchfailure.h). Never blocks: no waitFor* except in the destructor, which
// must reap the child before the object is gone.
// Owns: the QProcess, the health-poll QNetworkAccessManager and timers.
// Thread: create and use from one thread with an event loop (the GUI thread).
// Units: durations are std::chrono::milliseconds, sizes bytes.
//
// The server never outlives the app: on Linux the child asks the kernel for SIGKILL when its
// parent dies (prctl PR_SET_PDEATHSIG, set in QProcess::setChildProcessModifier, kept across
// the wrapper script's exec); on Windows the child goes into a job object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE (compiled only on Windows; untested here, Linux only).
// A normal exit stops it through the destructor.

#include "core/server/boundedlog.h"
#include "core/server/launchfailure.h"
#include "core/system/childoutputpipe.h"
#include "core/system/childprocessguard.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <chrono>
#include <cstdint>
#include <string>

class QNetworkAccessManager;
class QNetworkReply;

namespace llamafit {

class ServerProcess : public QObject {
    Q_OBJECT
  public:
    //            start()
    //  Stopped ----------> Starting --/health 503--> Loading --/health 200--> Ready
    //     ^                   |  \______________/health 200___________________^ |
    //     |                   |                      |                          |
    //     |          process exits / exec fails / no /health answer in time (hang)
    //     |                   v                      v                          v
    //     |                 Failed(reason) <-------------------------------------
    //     |                   |
    //     |  start() again ---+--> Starting
    //     |
    //  Stopping <--stop()-- Starting | Loading | Ready
    //     (SIGTERM; SIGKILL after the grace period; the exit ends in Stopped)
    enum class State { Stopped, Starting, Loading, Ready, Stopping, Failed };
    Q_ENUM(State)

    struct Timing {
        std::chrono::milliseconds healthInterval{250};
        std::chrono::milliseconds requestTimeout{2000}; // per /health request
        std::chrono::milliseconds stopGrace{5000};      // SIGTERM -> SIGKILL
        // No 200 from /health this long after start, process alive = Failed(hang).
        std::chrono::milliseconds loadLimit{120000};
        // Once Ready: no /health answer at all for this long, process alive = Failed(hang).
        std::chrono::milliseconds unresponsiveLimit{30000};
        // The output is read this often (ChildOutputPipe), not at every write: a busy server
        // writes thousands of short lines a second (at -lv 4 its prompt cache lists every
        // cached prompt on each request), and one wakeup per write was most of the monitor's
        // CPU. Ready, a failure and the exit read what is pending first, so nothing waits on it.
        std::chrono::milliseconds outputBatch{100};
    };

    // A load limit that scales with the model: 60 s plus 1 s per 50 MiB, i.e. a disk that
    // reads at least 50 MiB/s (a slow HDD) loads any model in time.
    static std::chrono::milliseconds loadLimitForModel(std::uint64_t modelBytes);
    // A TCP port on 127.0.0.1 free right now (the kernel's pick), 0 if none.
    static quint16 pickFreePort();
    static const char* stateName(State state);

    explicit ServerProcess(QObject* parent = nullptr);
    ~ServerProcess() override; // stops the server (SIGTERM, short grace, SIGKILL) and reaps it

    void setTiming(const Timing& timing) { m_timing = timing; }
    const Timing& timing() const { return m_timing; }
    // Environment of the next start(); default: this process's environment.
    void setEnvironment(const QProcessEnvironment& environment) { m_environment = environment; }

    // Starts `program args`. Adds `--host 127.0.0.1` unless args bind a host, and
    // `--port N` on a free port unless args name one. Returns false (and does nothing)
    // unless the state is Stopped or Failed. Exec errors arrive as Failed, not here.
    bool start(const QString& program, const QStringList& args);
    // Asks the server to exit (SIGTERM; Windows: CTRL_BREAK), SIGKILL after stopGrace.
    void stop();
    // Tells the failure classifier whether a request was running (from the monitor).
    void setGenerating(bool generating) { m_generating = generating; }

    State state() const { return m_state; }
    const LaunchFailure& failure() const { return m_failure; } // meaningful in Failed
    // stdout+stderr as kept: all of it up to a few MiB, then the startup, the diagnostic
    // lines and the recent output, each gap marked (BoundedLog::text()).
    std::string log() const { return m_log.text(); }
    const BoundedLog& boundedLog() const { return m_log; }
    QStringList arguments() const { return m_arguments; } // as passed, with host/port added
    quint16 port() const { return m_port; }
    QUrl baseUrl() const; // http://HOST:PORT
    qint64 processId() const;

  signals:
    void stateChanged(llamafit::ServerProcess::State state);
    void logLine(const QString& line);
    void failed(const llamafit::LaunchFailure& failure);

  private:
    void setState(State state);
    void fail(LaunchFailure failure);
    void readOutput();
    void readRemainingOutput(); // once the child has exited or failed to start
    void scheduleRead();        // QProcess's channel (no ChildOutputPipe): at most one read per outputBatch
    void onErrorOccurred(QProcess::ProcessError error);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void pollHealth();
    void onHealthReply(QNetworkReply* reply);
    void checkHang();

    Timing m_timing;
    QProcessEnvironment m_environment;
    QProcess* m_process = nullptr;
    QNetworkAccessManager* m_network = nullptr;
    QNetworkReply* m_healthReply = nullptr;
    QTimer m_healthTimer;
    QTimer m_killTimer;
    QTimer m_outputTimer;
    QElapsedTimer m_sinceStart;
    QElapsedTimer m_sinceAnswer; // last /health answer of any status
    State m_state = State::Stopped;
    LaunchFailure m_failure;
    BoundedLog m_log;
    QString m_program;
    QStringList m_arguments;
    QString m_host = QStringLiteral("127.0.0.1");
    quint16 m_port = 0;
    bool m_wasReady = false;
    bool m_generating = false;
    ChildProcessGuard m_childGuard; // the server dies with LlamaFit (PDEATHSIG / job object)
    ChildOutputPipe m_output;       // open: the output is read from it on m_outputTimer
};

} // namespace llamafit

Q_DECLARE_METATYPE(llamafit::LaunchFailure)

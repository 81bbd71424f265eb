#pragma once
// BenchmarkRun: one llama-bench process (core/server/benchrun.h builds its argv and reads its
// output) as an event-driven state machine. Used by `llamafit-cli bench` and the GUI's
// benchmark dialog. The child dies with LlamaFit (ChildProcessGuard); cancel() asks it to
// stop (SIGTERM), kills it after the grace period, and the run ends in Cancelled only once
// the process is gone, so no llama-bench outlives a cancelled run. Never blocks except in the
// destructor, which reaps a child still running.
// Owns: the QProcess and the kill timer. Thread: one thread with an event loop.
// Units: durations std::chrono::milliseconds; rates tokens per second.
//
//             start()                 exit 0, JSON parsed
//   Idle ------------> Running -----------------------------> Finished
//                        |   \---- exit != 0, no start, bad JSON ----> Failed(error)
//                     cancel()
//                        v
//                    Cancelling --(process gone)--> Cancelled
//   (start() again from Finished, Failed or Cancelled)
//
// Error codes (error()): bench.start-failed (the program could not be run: the message names
// it), bench.exit (llama-bench exited with a status: the message is its last error line),
// bench.crashed (a signal ended it), bench.bad-json / bench.bad-request /
// bench.unsupported-setting (core/server/benchrun.h).

#include "core/common/result.h"
#include "core/server/benchrun.h"
#include "core/system/childprocessguard.h"

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

#include <chrono>
#include <optional>
#include <vector>

namespace llamafit {

class BenchmarkRun : public QObject {
    Q_OBJECT
  public:
    enum class State { Idle, Running, Cancelling, Finished, Cancelled, Failed };
    Q_ENUM(State)

    struct Timing {
        std::chrono::milliseconds stopGrace{3000}; // SIGTERM -> SIGKILL on cancel()
    };

    static const char* stateName(State state);

    explicit BenchmarkRun(QObject* parent = nullptr);
    ~BenchmarkRun() override;

    void setTiming(const Timing& timing) { m_timing = timing; }
    void setEnvironment(const QProcessEnvironment& environment) { m_environment = environment; }

    // Starts `program` (the llama-bench wrapper) for `request`. false (state unchanged) while
    // Running or Cancelling; an argv error ends in Failed at once (error() says why).
    bool start(const QString& program, const BenchRequest& request);
    void cancel();

    State state() const { return m_state; }
    const Error& error() const { return m_error; }               // meaningful in Failed
    const std::vector<BenchRow>& rows() const { return m_rows; } // in Finished
    const std::optional<BenchProgress>& progress() const { return m_progress; }
    QStringList arguments() const { return m_arguments; }
    std::uint32_t testCount() const { return m_testCount; }
    qint64 processId() const;                                               // 0 when no process runs
    QString errorOutput() const { return QString::fromUtf8(m_stderrTail); } // the last stderr lines

  signals:
    void stateChanged(llamafit::BenchmarkRun::State state);
    void progressed(std::uint32_t test, std::uint32_t total, const QString& stage);

  private:
    void setState(State state);
    void fail(Error error);
    void readProgress();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onErrorOccurred(QProcess::ProcessError error);

    Timing m_timing;
    QProcessEnvironment m_environment;
    ChildProcessGuard m_childGuard;
    QProcess* m_process = nullptr;
    QTimer m_killTimer;
    State m_state = State::Idle;
    Error m_error;
    std::vector<BenchRow> m_rows;
    std::optional<BenchProgress> m_progress;
    QStringList m_arguments;
    std::uint32_t m_testCount = 0;
    QByteArray m_stdout;
    QByteArray m_stderrPartial; // an unfinished stderr line
    QByteArray m_stderrTail;    // the last stderr lines, at most kStderrTailBytes
};

} // namespace llamafit

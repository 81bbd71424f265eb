// The llama-bench process; see benchmarkrun.h.
#include "core/system/benchmarkrun.h"

namespace llamafit {

namespace {

// Enough for llama-bench's error lines; its backend search prints one line per directory.
constexpr int kStderrTailBytes = 16 * 1024;

// llama-bench's own error line ("llama_bench: error: failed to create context ..."), else the
// last line it printed.
std::string lastErrorLine(const QByteArray& tail) {
    const QList<QByteArray> lines = tail.split('\n');
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        if (it->contains("error")) {
            return it->trimmed().toStdString();
        }
    }
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        if (!it->trimmed().isEmpty()) {
            return it->trimmed().toStdString();
        }
    }
    return "no output";
}

} // namespace

const char* BenchmarkRun::stateName(State state) {
    switch (state) {
    case State::Idle:
        return "idle";
    case State::Running:
        return "running";
    case State::Cancelling:
        return "cancelling";
    case State::Finished:
        return "finished";
    case State::Cancelled:
        return "cancelled";
    case State::Failed:
        return "failed";
    }
    return "?";
}

BenchmarkRun::BenchmarkRun(QObject* parent)
    : QObject(parent), m_environment(QProcessEnvironment::systemEnvironment()) {
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (m_process != nullptr) {
            m_process->kill();
        }
    });
}

BenchmarkRun::~BenchmarkRun() {
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        // The one blocking wait: the object is going away and the child must be reaped with
        // it. llama-bench keeps no state worth a polite stop.
        disconnect(m_process, nullptr, this, nullptr);
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

qint64 BenchmarkRun::processId() const {
    return m_process != nullptr && m_process->state() != QProcess::NotRunning ? m_process->processId() : 0;
}

bool BenchmarkRun::start(const QString& program, const BenchRequest& request) {
    if (m_state == State::Running || m_state == State::Cancelling) {
        return false;
    }
    m_rows.clear();
    m_progress.reset();
    m_stdout.clear();
    m_stderrPartial.clear();
    m_stderrTail.clear();
    m_error = {};
    m_arguments.clear();
    Result<std::vector<std::string>> args = buildBenchArgs(request);
    if (!args) {
        fail(args.error());
        return true;
    }
    for (const std::string& arg : *args) {
        m_arguments << QString::fromStdString(arg);
    }
    m_testCount = benchTestCount(request);
    if (m_process != nullptr) {
        m_process->disconnect(this);
        m_process->deleteLater();
    }
    m_process = new QProcess(this);
    m_process->setProcessEnvironment(m_environment);
    m_childGuard.apply(*m_process);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_stdout += m_process->readAllStandardOutput(); });
    connect(m_process, &QProcess::readyReadStandardError, this, &BenchmarkRun::readProgress);
    connect(m_process, &QProcess::finished, this, &BenchmarkRun::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &BenchmarkRun::onErrorOccurred);
    setState(State::Running);
    m_process->start(program, m_arguments);
    return true;
}

void BenchmarkRun::cancel() {
    if (m_state != State::Running) {
        return;
    }
    setState(State::Cancelling);
    if (m_process == nullptr || m_process->state() == QProcess::NotRunning) {
        setState(State::Cancelled);
        return;
    }
    if (requestStop(*m_process)) {
        m_killTimer.start(m_timing.stopGrace);
    } else {
        m_process->kill();
    }
}

void BenchmarkRun::setState(State state) {
    if (state == m_state) {
        return;
    }
    m_state = state;
    emit stateChanged(state);
}

void BenchmarkRun::fail(Error error) {
    m_error = std::move(error);
    setState(State::Failed);
}

void BenchmarkRun::readProgress() {
    const QByteArray chunk = m_process->readAllStandardError();
    m_stderrTail += chunk;
    if (m_stderrTail.size() > kStderrTailBytes) {
        m_stderrTail = m_stderrTail.right(kStderrTailBytes);
    }
    m_stderrPartial += chunk;
    qsizetype newline = 0;
    while ((newline = m_stderrPartial.indexOf('\n')) >= 0) {
        const QByteArray line = m_stderrPartial.left(newline);
        m_stderrPartial.remove(0, newline + 1);
        if (std::optional<BenchProgress> progress = benchProgressFromLine(line.toStdString())) {
            m_progress = progress;
            emit progressed(progress->test, progress->total, QString::fromStdString(progress->stage));
        }
    }
    if (m_stderrPartial.size() > kStderrTailBytes) {
        m_stderrPartial.clear(); // a line that long is no progress line
    }
}

void BenchmarkRun::onErrorOccurred(QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart && m_state == State::Running) {
        fail(makeError("bench.start-failed", "cannot run " + m_process->program().toStdString() + ": " +
                                                 m_process->errorString().toStdString()));
    }
}

void BenchmarkRun::onFinished(int exitCode, QProcess::ExitStatus status) {
    m_killTimer.stop();
    m_stdout += m_process->readAllStandardOutput();
    if (m_state == State::Cancelling) {
        setState(State::Cancelled);
        return;
    }
    if (m_state != State::Running) {
        return;
    }
    if (status == QProcess::CrashExit) {
        fail(makeError("bench.crashed", "llama-bench was ended by a signal: " + lastErrorLine(m_stderrTail)));
        return;
    }
    if (exitCode != 0) {
        fail(makeError("bench.exit", "llama-bench exited with status " + std::to_string(exitCode) + ": " +
                                         lastErrorLine(m_stderrTail)));
        return;
    }
    Result<std::vector<BenchRow>> rows = parseBenchJson(m_stdout.toStdString());
    if (!rows) {
        fail(rows.error());
        return;
    }
    m_rows = std::move(*rows);
    setState(State::Finished);
}

} // namespace llamafit

// ProjectionCrossCheck; see projectioncrosscheck.h.

#include "ui/launch/projectioncrosscheck.h"

#include "core/sizing/estimator.h"
#include "ui/sizingsession.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStringList>

namespace llamafit {

namespace {

#ifdef Q_OS_WIN
const QString kToolName = QStringLiteral("llama-fit-params.exe");
#else
const QString kToolName = QStringLiteral("llama-fit-params");
#endif

QStringList toArguments(const std::vector<std::string>& words) {
    QStringList arguments;
    for (const std::string& word : words) {
        arguments << QString::fromStdString(word);
    }
    return arguments;
}

QString logTail(const QByteArray& log) {
    constexpr int kTail = 600;
    return QString::fromUtf8(log.size() > kTail ? log.right(kTail) : log).trimmed();
}

} // namespace

ProjectionCrossCheck::ProjectionCrossCheck(SizingSession* session, QObject* parent)
    : QObject(parent), m_session(session) {
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &ProjectionCrossCheck::start);
    connect(m_session, &SizingSession::estimateChanged, this, &ProjectionCrossCheck::schedule);
    schedule();
}

ProjectionCrossCheck::~ProjectionCrossCheck() {
    stopRunning();
}

QString ProjectionCrossCheck::toolBesideServer(const QString& serverBinary) {
    if (!serverBinary.isEmpty()) {
        const QString beside = QFileInfo(serverBinary).absoluteDir().filePath(kToolName);
        if (QFileInfo(beside).isExecutable()) {
            return beside;
        }
    }
    if (const QString fromEnv = qEnvironmentVariable("LLAMAFIT_LLAMA_FIT_PARAMS"); !fromEnv.isEmpty()) {
        return fromEnv;
    }
    return QStandardPaths::findExecutable(QStringLiteral("llama-fit-params"));
}

void ProjectionCrossCheck::setTool(const QString& program) {
    if (program == m_tool) {
        return;
    }
    m_tool = program;
    schedule();
}

void ProjectionCrossCheck::schedule() {
    stopRunning(); // its answer would be for settings that are gone
    m_rows.clear();
    if (m_tool.isEmpty()) {
        settle(State::Off, tr("No llama-fit-params found next to llama-server: llama.cpp's own projection is "
                              "not checked."));
        return;
    }
    if (m_session->model().path.empty()) {
        settle(State::Off, tr("A built-in card has no file for llama.cpp to measure."));
        return;
    }
    if (!m_session->estimate()) {
        settle(State::Off, tr("The settings are refused; nothing to compare."));
        return;
    }
    m_debounce.start();
    settle(State::Waiting, tr("Asking llama.cpp for its projection..."));
}

void ProjectionCrossCheck::start() {
    if (m_buildOfTool != m_tool) {
        startVersionProbe();
    } else {
        startProjection();
    }
}

void ProjectionCrossCheck::startVersionProbe() {
    m_process = new QProcess(this);
    QProcess* probe = m_process;
    connect(probe, &QProcess::finished, this, [this, probe](int, QProcess::ExitStatus) {
        if (probe != m_process) {
            return; // cancelled
        }
        m_build = QString::fromStdString(buildTag(probe->readAllStandardError().toStdString() +
                                                  probe->readAllStandardOutput().toStdString())
                                             .value_or("(unknown build)"));
        m_buildOfTool = m_tool;
        m_process = nullptr;
        probe->deleteLater();
        startProjection();
    });
    connect(probe, &QProcess::errorOccurred, this, [this, probe](QProcess::ProcessError error) {
        if (probe != m_process || error != QProcess::FailedToStart) {
            return;
        }
        m_process = nullptr;
        probe->deleteLater();
        settle(State::Failed, tr("%1 did not start: %2").arg(m_tool, probe->errorString()));
    });
    probe->start(m_tool, {QStringLiteral("--version")});
}

void ProjectionCrossCheck::startProjection() {
    const ServerSettings settings = m_session->settings();
    m_process = new QProcess(this);
    QProcess* run = m_process;
    connect(run, &QProcess::finished, this, &ProjectionCrossCheck::onProjectionFinished);
    connect(run, &QProcess::errorOccurred, this, [this, run](QProcess::ProcessError error) {
        if (run != m_process || error != QProcess::FailedToStart) {
            return;
        }
        m_process = nullptr;
        run->deleteLater();
        settle(State::Failed, tr("%1 did not start: %2").arg(m_tool, run->errorString()));
    });
    run->start(m_tool, toArguments(projectionToolArgs(m_session->model().path, settings)));
    if (run == m_process) { // still ours: it did not fail to start
        settle(State::Waiting, tr("llama.cpp is measuring these settings..."));
    }
}

void ProjectionCrossCheck::onProjectionFinished(int exitCode, QProcess::ExitStatus status) {
    QProcess* run = m_process;
    if (run == nullptr || sender() != run) {
        return; // a cancelled run
    }
    m_process = nullptr;
    run->deleteLater();
    const QByteArray log = run->readAllStandardError();
    if (status != QProcess::NormalExit || exitCode != 0) {
        settle(State::Failed, tr("llama-fit-params exited with %1:\n%2").arg(exitCode).arg(logTail(log)));
        return;
    }
    // LlamaFit's side: the estimate measured as llama-fit-params measures (projectionSettings).
    const Result<MemoryEstimate> estimate =
        estimateMemory(m_session->model().info, projectionSettings(m_session->settings()), m_session->gpus());
    if (!estimate) {
        settle(State::Failed, QString::fromStdString(estimate.error().message));
        return;
    }
    Result<std::vector<ProjectionCheckRow>> rows =
        checkProjection(log.toStdString(), *estimate, run->readAllStandardOutput().toStdString());
    if (!rows) {
        settle(State::Failed, tr("llama-fit-params printed no memory breakdown:\n%1").arg(logTail(log)));
        return;
    }
    // llama-fit-params measures this computer's devices; a plan for another machine is not
    // comparable device by device.
    QStringList seen;
    for (const ProjectionCheckRow& row : *rows) {
        if (row.device != "Host") {
            seen << QString::fromStdString(row.device);
        }
    }
    QStringList planned;
    for (const GpuDevice& gpu : m_session->gpus()) {
        planned << QString::fromStdString(gpu.name.substr(0, gpu.name.find('['))); // "RPC0[host:port]"
    }
    if (seen != planned) {
        const QString none = tr("no GPU");
        settle(State::Off, tr("llama.cpp on this computer sees %1, the plan is for %2: not compared.")
                               .arg(seen.isEmpty() ? none : seen.join(QStringLiteral(", ")),
                                    planned.isEmpty() ? none : planned.join(QStringLiteral(", "))));
        return;
    }
    m_rows = std::move(*rows);
    settle(State::Done);
}

void ProjectionCrossCheck::stopRunning() {
    m_debounce.stop();
    if (m_process == nullptr) {
        return;
    }
    QProcess* run = m_process;
    m_process = nullptr; // its finished() is ignored from here on
    run->disconnect(this);
    run->kill();
    run->waitForFinished(5000); // reaped: no zombie, no orphan
    run->deleteLater();
}

void ProjectionCrossCheck::settle(State state, QString message) {
    m_state = state;
    m_message = std::move(message);
    emit changed();
}

} // namespace llamafit

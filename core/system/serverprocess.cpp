#include "core/system/serverprocess.h"

#include "core/server/exposure.h"

#include "core/system/rpchostquery.h"

#include <QFileInfo>
#include <QHostAddress>
#include <QMetaMethod>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QStandardPaths>
#include <QTcpServer>

#include "core/flags/flagtable.h"
#include "core/server/slotsjson.h"

#include <algorithm>

namespace llamafit {

namespace {

// The value of the flag of row `id` (any spelling, `--flag V` or `--flag=V`) in args, empty when absent.
QString flagValue(const QStringList& args, FlagId id, bool* present) {
    const FlagRow& row = flagRow(id);
    for (qsizetype i = 0; i < args.size(); ++i) {
        const std::string word = args[i].toStdString();
        const std::string_view name = flagName(word);
        if (!row.hasSpelling(name)) {
            continue;
        }
        *present = true;
        if (name.size() < word.size()) {
            return args[i].mid(static_cast<qsizetype>(name.size()) + 1);
        }
        return i + 1 < args.size() ? args[i + 1] : QString();
    }
    *present = false;
    return {};
}

QString spellingOf(FlagId id) {
    return QString::fromStdString(std::string(flagRow(id).canonicalSpelling()));
}

ExecError execErrorFor(const QString& program) {
    // QProcess reports both cases as FailedToStart; the classifier names them apart.
    const QString resolved =
        program.contains(QLatin1Char('/')) ? program : QStandardPaths::findExecutable(program);
    if (resolved.isEmpty() || !QFileInfo::exists(resolved)) {
        return ExecError::Missing;
    }
    return ExecError::NotExecutable;
}

} // namespace

std::chrono::milliseconds ServerProcess::loadLimitForModel(std::uint64_t modelBytes) {
    constexpr std::uint64_t kBytesPerSecond = 50ull * 1024 * 1024;
    return std::chrono::seconds(60) + std::chrono::seconds(modelBytes / kBytesPerSecond);
}

quint16 ServerProcess::pickFreePort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) {
        return 0;
    }
    return probe.serverPort();
}

const char* ServerProcess::stateName(State state) {
    switch (state) {
    case State::Stopped:
        return "stopped";
    case State::Starting:
        return "starting";
    case State::Loading:
        return "loading";
    case State::Ready:
        return "ready";
    case State::Stopping:
        return "stopping";
    case State::Failed:
        return "failed";
    }
    return "unknown";
}

ServerProcess::ServerProcess(QObject* parent)
    : QObject(parent), m_environment(QProcessEnvironment::systemEnvironment()),
      m_network(new QNetworkAccessManager(this)) {
    qRegisterMetaType<llamafit::LaunchFailure>();
    // A proxy from the environment must never see requests to our own child.
    m_network->setProxy(QNetworkProxy::NoProxy);
    connect(&m_healthTimer, &QTimer::timeout, this, &ServerProcess::pollHealth);
    m_outputTimer.setSingleShot(true);
    connect(&m_outputTimer, &QTimer::timeout, this, &ServerProcess::readOutput);
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (m_process != nullptr) {
            m_process->kill();
        }
    });
}

ServerProcess::~ServerProcess() {
    // The one blocking wait: the child must be reaped with the object (usually at app exit).
    stopAndReap(m_process, this, m_timing.stopGrace);
}

QUrl ServerProcess::baseUrl() const {
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(
        QString::fromStdString(reachableAddress(m_host.toStdString()))); // a wildcard bind on loopback
    url.setPort(m_port);
    return url;
}

qint64 ServerProcess::processId() const {
    return m_process != nullptr ? m_process->processId() : 0;
}

bool ServerProcess::start(const QString& program, const QStringList& args) {
    if (m_state != State::Stopped && m_state != State::Failed) {
        return false;
    }
    m_log.clear();
    m_failure = LaunchFailure{};
    m_wasReady = false;
    m_generating = false;
    m_program = program;
    m_arguments = args;

    bool hasHost = false;
    // The launcher (launchArgvOptions, core/server/buildargv.h) decides --host and --port; what
    // it left out is decided here, where a free port can be found: loopback and a free port.
    const QString host = flagValue(args, FlagId::Host, &hasHost);
    m_host = hasHost ? host : QStringLiteral("127.0.0.1");
    if (!hasHost) {
        m_arguments << spellingOf(FlagId::Host) << m_host;
    }
    bool hasPort = false;
    const QString port = flagValue(args, FlagId::Port, &hasPort);
    m_port = hasPort ? port.toUShort() : pickFreePort();
    if (!hasPort) {
        m_arguments << spellingOf(FlagId::Port) << QString::number(m_port);
    }

    if (m_process != nullptr) {
        m_process->disconnect(this);
        m_process->deleteLater();
    }
    m_process = new QProcess(this);
    m_process->setProcessEnvironment(m_environment);
    if (m_output.open()) {
        // The pipe replaces QProcess's channels in the child; it is read on the timer.
        m_process->setStandardOutputFile(QProcess::nullDevice());
        m_process->setStandardErrorFile(QProcess::nullDevice());
        m_childGuard.apply(*m_process, [pipe = &m_output] { pipe->redirectInChild(); });
        connect(m_process, &QProcess::started, this, [this] { m_output.closeWriteEnd(); });
        m_outputTimer.setSingleShot(false);
        m_outputTimer.start(m_timing.outputBatch);
    } else {
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        m_childGuard.apply(*m_process);
        m_outputTimer.setSingleShot(true);
        connect(m_process, &QProcess::readyReadStandardOutput, this, &ServerProcess::scheduleRead);
    }
    connect(m_process, &QProcess::errorOccurred, this, &ServerProcess::onErrorOccurred);
    connect(m_process, &QProcess::finished, this, &ServerProcess::onFinished);

    setState(State::Starting);
    m_sinceStart.start();
    m_sinceAnswer.start();
    m_healthTimer.start(m_timing.healthInterval);
    // FailedToStart may be reported from inside start(); the state is Starting by then.
    m_process->start(program, m_arguments);
    return true;
}

void ServerProcess::stop() {
    if (m_state == State::Stopped || m_state == State::Failed || m_state == State::Stopping) {
        return;
    }
    m_healthTimer.stop();
    if (m_healthReply != nullptr) {
        m_healthReply->abort();
    }
    if (m_process == nullptr || m_process->state() == QProcess::NotRunning) {
        setState(State::Stopped);
        return;
    }
    setState(State::Stopping);
    if (m_process->state() == QProcess::Running && requestStop(*m_process)) {
        m_killTimer.start(m_timing.stopGrace);
    } else {
        m_process->kill();
    }
}

void ServerProcess::setState(State state) {
    if (state == m_state) {
        return;
    }
    m_state = state;
    emit stateChanged(state);
}

void ServerProcess::fail(LaunchFailure failure) {
    m_healthTimer.stop();
    m_killTimer.stop();
    if (failure.reason == LaunchFailureReason::RpcHostLost && failure.rpcEndpoint.empty()) {
        // Which --rpc host went away: the first that no longer accepts a connection (a refused
        // loopback port answers at once; a remote host that vanished costs the timeout).
        std::vector<std::string> endpoints;
        const qsizetype rpc = m_arguments.indexOf(QStringLiteral("--rpc"));
        if (rpc >= 0 && rpc + 1 < m_arguments.size()) {
            for (const QString& endpoint : m_arguments[rpc + 1].split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                endpoints.push_back(endpoint.toStdString());
            }
        }
        if (const auto lost = firstSilentEndpoint(endpoints, std::chrono::milliseconds(1000))) {
            failure.rpcEndpoint = *lost;
            failure.message = "lost RPC host " + *lost + ": " + failure.message;
        }
    }
    if (m_healthReply != nullptr) {
        m_healthReply->abort();
    }
    m_failure = std::move(failure);
    setState(State::Failed);
    emit failed(m_failure);
}

void ServerProcess::scheduleRead() {
    if (!m_outputTimer.isActive()) {
        m_outputTimer.start(m_timing.outputBatch);
    }
}

void ServerProcess::readOutput() {
    if (m_outputTimer.isSingleShot()) {
        m_outputTimer.stop();
    }
    if (m_process == nullptr) {
        return;
    }
    const QByteArray data = m_output.isOpen() ? m_output.readAvailable() : m_process->readAllStandardOutput();
    const std::string_view chunk(data.constData(), static_cast<std::size_t>(data.size()));
    // The text of each line only for a listener (the GUI's log panel); the CLI has none.
    if (isSignalConnected(QMetaMethod::fromSignal(&ServerProcess::logLine))) {
        m_log.append(chunk, [this](std::string_view line) {
            emit logLine(QString::fromUtf8(line.data(), static_cast<qsizetype>(line.size())));
        });
    } else {
        m_log.append(chunk);
    }
}

// The child is gone (or never ran): what it wrote is all in the pipe or QProcess's buffer.
void ServerProcess::readRemainingOutput() {
    m_output.closeWriteEnd();
    readOutput();
    m_outputTimer.stop();
    m_output.close();
}

void ServerProcess::onErrorOccurred(QProcess::ProcessError error) {
    // Crashes and exits arrive through finished(); only a failed exec ends here.
    if (error != QProcess::FailedToStart || m_state == State::Failed) {
        return;
    }
    readRemainingOutput();
    LaunchOutcome outcome;
    outcome.log = m_log.text();
    outcome.execError = execErrorFor(m_program);
    outcome.execMessage = m_process->errorString().toStdString();
    fail(classifyLaunchFailure(outcome));
}

void ServerProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
    readRemainingOutput();
    if (const std::string_view last = m_log.pendingLine(); !last.empty()) {
        emit logLine(QString::fromUtf8(last.data(), static_cast<qsizetype>(last.size())));
    }
    m_killTimer.stop();
    m_healthTimer.stop();
    if (m_state == State::Stopping) {
        setState(State::Stopped);
        return;
    }
    if (m_state == State::Failed) {
        m_failure.log = m_log.text(); // the lines printed while it was being killed
        return;
    }
    LaunchOutcome outcome;
    outcome.log = m_log.text();
    outcome.wasReady = m_wasReady;
    outcome.wasGenerating = m_generating;
#ifdef Q_OS_WIN
    outcome.exitCode = exitCode;
    Q_UNUSED(status);
#else
    // Qt on Unix reports the terminating signal's number as the exit code of a CrashExit.
    if (status == QProcess::CrashExit) {
        outcome.signal = exitCode;
    } else {
        outcome.exitCode = exitCode;
    }
#endif
    fail(classifyLaunchFailure(outcome));
}

void ServerProcess::pollHealth() {
    checkHang();
    if (m_state != State::Starting && m_state != State::Loading && m_state != State::Ready) {
        return;
    }
    if (m_healthReply != nullptr) {
        return; // the previous request is still within its own timeout
    }
    QUrl url = baseUrl();
    url.setPath(QStringLiteral("/health"));
    QNetworkRequest request(url);
    request.setTransferTimeout(static_cast<int>(m_timing.requestTimeout.count()));
    m_healthReply = m_network->get(request);
    QNetworkReply* reply = m_healthReply;
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onHealthReply(reply); });
}

void ServerProcess::onHealthReply(QNetworkReply* reply) {
    reply->deleteLater();
    if (reply == m_healthReply) {
        m_healthReply = nullptr;
    }
    const int httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (httpStatus == 0) {
        return; // refused (not listening yet), timed out, or aborted: no answer
    }
    m_sinceAnswer.start();
    const QByteArray body = reply->readAll();
    const Result<HealthStatus> health =
        parseHealth(httpStatus, std::string_view(body.constData(), static_cast<std::size_t>(body.size())));
    if (!health.ok()) {
        return;
    }
    if (*health == HealthStatus::Ready && (m_state == State::Starting || m_state == State::Loading)) {
        m_wasReady = true;
        readOutput(); // the load's buffer lines are in log() when Ready is announced
        setState(State::Ready);
    } else if (*health == HealthStatus::Loading && m_state == State::Starting) {
        setState(State::Loading);
    }
}

void ServerProcess::checkHang() {
    if (m_process == nullptr || m_process->state() != QProcess::Running) {
        return;
    }
    const bool loadTooLong = (m_state == State::Starting || m_state == State::Loading) &&
                             m_sinceStart.hasExpired(m_timing.loadLimit.count());
    const bool silentTooLong =
        m_state == State::Ready && m_sinceAnswer.hasExpired(m_timing.unresponsiveLimit.count());
    if (!loadTooLong && !silentTooLong) {
        return;
    }
    readOutput();
    LaunchFailure failure;
    failure.reason = LaunchFailureReason::Hang;
    const auto limitSeconds =
        (loadTooLong ? m_timing.loadLimit : m_timing.unresponsiveLimit).count() / 1000.0;
    failure.message = (loadTooLong ? std::string("llama-server did not become ready within ")
                                   : std::string("llama-server stopped answering /health for ")) +
                      QString::number(limitSeconds).toStdString() +
                      " s while its process was still alive; LlamaFit killed it. The log is kept.";
    failure.log = m_log.text();
    fail(std::move(failure));
    m_process->kill(); // a hung (or SIGSTOPped) server does not react to SIGTERM
}

} // namespace llamafit

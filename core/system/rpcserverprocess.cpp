// RpcServerProcess: a local ggml-rpc-server's life; see rpcserverprocess.h.

#include "core/system/rpcserverprocess.h"

#include "core/server/exposure.h"
#include "core/system/llamatool.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>

namespace llamafit {

namespace {

// Whether another program already listens on the server's port: binding it here fails with
// AddressInUse. Other bind errors (an address that is not this machine's) are left to the server,
// which names them itself.
bool portTaken(const RpcServerOptions& options) {
    QTcpServer server;
    const QHostAddress address = options.host == "0.0.0.0"
                                     ? QHostAddress(QHostAddress::AnyIPv4)
                                     : QHostAddress(QString::fromStdString(reachableAddress(options.host)));
    if (server.listen(address, options.port)) {
        return false;
    }
    return server.serverError() == QAbstractSocket::AddressInUseError;
}

// The last few lines of the server's output, for a failure message.
std::string lastLines(const std::string& log, std::size_t count) {
    std::size_t at = log.size();
    while (at > 0 && (log[at - 1] == '\n' || log[at - 1] == '\r')) {
        --at;
    }
    const std::size_t end = at;
    for (std::size_t seen = 0; at > 0 && seen < count; --at) {
        if (log[at - 1] == '\n' && ++seen == count) {
            break;
        }
    }
    return log.substr(at, end - at);
}

} // namespace

QString defaultRpcServerProgram(const QString& serverProgram) {
    return llamaToolProgram(QStringLiteral("ggml-rpc-server"), "LLAMAFIT_GGML_RPC_SERVER", serverProgram);
}

const char* RpcServerProcess::stateName(State state) {
    switch (state) {
    case State::Stopped:
        return "stopped";
    case State::Starting:
        return "starting";
    case State::Listening:
        return "listening";
    case State::Stopping:
        return "stopping";
    case State::Failed:
        return "failed";
    }
    return "unknown";
}

RpcServerProcess::RpcServerProcess(QObject* parent) : QObject(parent) {
    qRegisterMetaType<llamafit::Error>();
    m_connectTimer.setSingleShot(false);
    m_startLimitTimer.setSingleShot(true);
    m_killTimer.setSingleShot(true);
    connect(&m_connectTimer, &QTimer::timeout, this, &RpcServerProcess::tryConnect);
    connect(&m_startLimitTimer, &QTimer::timeout, this, [this] {
        if (m_state == State::Starting) {
            fail(makeError("rpc-server.no-answer", "ggml-rpc-server did not listen on " + endpoint() +
                                                       " within " +
                                                       std::to_string(m_timing.startLimit.count() / 1000) +
                                                       " s; its last lines:\n" + lastLines(m_log.text(), 5)));
        }
    });
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
            m_process->kill();
        }
    });
}

RpcServerProcess::~RpcServerProcess() {
    // The one blocking wait: the child must be reaped with the object (usually at app exit).
    stopAndReap(m_process, this, m_timing.stopGrace);
}

qint64 RpcServerProcess::processId() const {
    return m_process != nullptr ? m_process->processId() : 0;
}

bool RpcServerProcess::start(const QString& program, const RpcServerOptions& options) {
    if (m_state != State::Stopped && m_state != State::Failed) {
        return false;
    }
    m_options = options;
    m_program = program;
    m_failure = Error{};
    m_accepted = false;
    m_log.clear();
    if (m_process != nullptr) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
    setState(State::Starting);
    Result<std::vector<std::string>> args = rpcServerArguments(options);
    if (!args) {
        fail(args.error());
        return true;
    }
    if (portTaken(options)) {
        fail(*rpcServerStartFailure("Failed to create server socket", options));
        return true;
    }
    QStringList arguments;
    for (const std::string& arg : *args) {
        arguments << QString::fromStdString(arg);
    }
    m_process = new QProcess(this);
    m_process->setProcessEnvironment(m_environment);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_childGuard.apply(*m_process);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &RpcServerProcess::readOutput);
    connect(m_process, &QProcess::errorOccurred, this, &RpcServerProcess::onErrorOccurred);
    connect(m_process, &QProcess::finished, this, &RpcServerProcess::onFinished);
    m_connectTimer.start(m_timing.connectInterval);
    m_startLimitTimer.start(m_timing.startLimit);
    m_process->start(program, arguments);
    return true;
}

void RpcServerProcess::stop() {
    if (m_state == State::Stopped || m_state == State::Failed || m_state == State::Stopping) {
        return;
    }
    m_connectTimer.stop();
    m_startLimitTimer.stop();
    if (m_process == nullptr || m_process->state() == QProcess::NotRunning) {
        setState(State::Stopped);
        return;
    }
    setState(State::Stopping);
    // ggml-rpc-server keeps nothing to flush: SIGTERM's default action ends it, as Ctrl-C does on
    // Windows.
    if (requestStop(*m_process)) {
        m_killTimer.start(m_timing.stopGrace);
    } else {
        m_process->kill();
    }
}

void RpcServerProcess::setState(State state) {
    if (state == m_state) {
        return;
    }
    m_state = state;
    emit stateChanged(state);
}

void RpcServerProcess::fail(Error error) {
    m_connectTimer.stop();
    m_startLimitTimer.stop();
    if (m_probe != nullptr) {
        m_probe->abort();
        m_probe->deleteLater();
        m_probe = nullptr;
    }
    m_failure = std::move(error);
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        m_process->kill(); // a server that failed its start (no answer) must not stay behind
    }
    setState(State::Failed);
    emit failed(m_failure);
}

void RpcServerProcess::readOutput() {
    if (m_process == nullptr) {
        return;
    }
    const QByteArray chunk = m_process->readAllStandardOutput();
    m_log.append(std::string_view(chunk.constData(), static_cast<std::size_t>(chunk.size())),
                 [this](std::string_view line) {
                     emit logLine(QString::fromUtf8(line.data(), qsizetype(line.size())));
                 });
}

void RpcServerProcess::tryConnect() {
    if (m_state != State::Starting || m_probe != nullptr) {
        return;
    }
    // Not before the banner's failure lines could have come: a start failure the output names wins.
    if (std::optional<Error> refused = rpcServerStartFailure(m_log.text(), m_options)) {
        fail(*refused);
        return;
    }
    if (m_accepted) {
        // The banner lists the devices before the socket opens, on stderr (unbuffered), but it
        // may reach this side of the pipe a moment after the connection: one tick more for it.
        listen();
        return;
    }
    m_probe = new QTcpSocket(this);
    connect(m_probe, &QTcpSocket::connected, this, [this] {
        m_probe->abort();
        m_probe->deleteLater();
        m_probe = nullptr;
        if (m_state == State::Starting) {
            m_accepted = true;
            readOutput();
            if (!devices().empty()) {
                listen();
            }
        }
    });
    connect(m_probe, &QTcpSocket::errorOccurred, this, [this] {
        m_probe->deleteLater();
        m_probe = nullptr; // tried again on the next tick
    });
    m_probe->connectToHost(QString::fromStdString(reachableAddress(m_options.host)), m_options.port);
}

void RpcServerProcess::listen() {
    m_connectTimer.stop();
    m_startLimitTimer.stop();
    setState(State::Listening);
}

void RpcServerProcess::onErrorOccurred(QProcess::ProcessError error) {
    // Exits and crashes arrive through finished(); only a failed exec ends here.
    if (error != QProcess::FailedToStart || m_state == State::Failed) {
        return;
    }
    fail(makeError("rpc-server.missing", "ggml-rpc-server could not be started ('" + m_program.toStdString() +
                                             "'): " + m_process->errorString().toStdString() +
                                             ". Install llama.cpp's RPC server or give its path"));
}

void RpcServerProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
    readOutput();
    m_killTimer.stop();
    if (m_state == State::Stopping || m_state == State::Failed) {
        if (m_state == State::Stopping) {
            setState(State::Stopped);
        }
        return;
    }
    if (std::optional<Error> refused = rpcServerStartFailure(m_log.text(), m_options)) {
        fail(*refused);
        return;
    }
    const std::string how =
        status == QProcess::CrashExit ? "crashed" : "exited with status " + std::to_string(exitCode);
    fail(makeError("rpc-server.exited", "ggml-rpc-server on " + endpoint() + " " + how +
                                            "; its last lines:\n" + lastLines(m_log.text(), 5)));
}

} // namespace llamafit

#pragma once
// RpcServerProcess: one local ggml-rpc-server child as an event-driven state machine, with the
// same process control as ServerProcess (llama-server): started from an argv list (never a
// shell), dies with LlamaFit (ChildProcessGuard: PR_SET_PDEATHSIG / a kill-on-close job object),
// stopped with SIGTERM then SIGKILL, reaped in the destructor. Used by `llamafit-cli rpc-server`
// and the GUI's cluster view to serve this machine's devices to a llama-server on another host
// (or on this one, as the tests do).
//
//            start()                  port accepts a connection
//  Stopped ----------> Starting -------------------------------> Listening
//     ^                   |  \                                     |
//     |                   |   exits / exec fails / no port in time |  exits or crashes
//     |                   v                                        v
//     |                 Failed(error) <-----------------------------
//     |
//  Stopping <--stop()-- Starting | Listening   (the exit ends in Stopped)
//
// "Listening" is a TCP connection accepted on the server's port (ggml-rpc-server prints its
// banner before it creates the socket, and exits with status 0 when the port is taken). The port
// is checked free before the start, so a connection accepted afterwards is this server's.
// Errors (Error codes): rpc-server.port-in-use, rpc-server.unknown-device
// (rpcservercommand.h), rpc-server.bad-option, rpc-server.missing (the program did not start),
// rpc-server.exited (it ended, with the last lines it printed), rpc-server.no-answer (alive but
// not listening within the start limit).
// Owns: the QProcess and its timers. Thread: one thread with an event loop.

#include "core/common/result.h"
#include "core/server/boundedlog.h"
#include "core/server/devicelist.h"
#include "core/server/rpcservercommand.h"
#include "core/system/childprocessguard.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>

#include <chrono>
#include <string>
#include <vector>

class QTcpSocket;

namespace llamafit {

class RpcServerProcess : public QObject {
    Q_OBJECT
  public:
    enum class State { Stopped, Starting, Listening, Stopping, Failed };
    Q_ENUM(State)

    struct Timing {
        std::chrono::milliseconds connectInterval{100}; // how often the port is tried while Starting
        std::chrono::milliseconds startLimit{30000};    // no connection accepted by then = no-answer
        std::chrono::milliseconds stopGrace{3000};      // SIGTERM -> SIGKILL
    };

    static const char* stateName(State state);

    explicit RpcServerProcess(QObject* parent = nullptr);
    ~RpcServerProcess() override; // stops the server and reaps it

    void setTiming(const Timing& timing) { m_timing = timing; }
    void setEnvironment(const QProcessEnvironment& environment) { m_environment = environment; }

    // Starts `program` (a ggml-rpc-server path or a name on PATH) with `options`. False (and
    // nothing done) unless Stopped or Failed; every failure arrives as Failed.
    bool start(const QString& program, const RpcServerOptions& options);
    void stop();

    State state() const { return m_state; }
    const Error& failure() const { return m_failure; } // meaningful in Failed
    const RpcServerOptions& options() const { return m_options; }
    std::string endpoint() const { return rpcServerEndpoint(m_options); } // for --rpc on this machine
    // The devices the server's banner lists, with their free memory (empty before the banner).
    std::vector<ListedDevice> devices() const { return rpcServerDevices(m_log.text()); }
    std::string log() const { return m_log.text(); }
    qint64 processId() const;

  signals:
    void stateChanged(llamafit::RpcServerProcess::State state);
    void logLine(const QString& line);
    void failed(const llamafit::Error& error);

  private:
    void setState(State state);
    void fail(Error error);
    void readOutput();
    void tryConnect();
    void listen(); // Starting -> Listening
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onErrorOccurred(QProcess::ProcessError error);

    Timing m_timing;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
    RpcServerOptions m_options;
    QString m_program;
    QProcess* m_process = nullptr;
    QTcpSocket* m_probe = nullptr;
    QTimer m_connectTimer;
    QTimer m_startLimitTimer;
    QTimer m_killTimer;
    State m_state = State::Stopped;
    bool m_accepted = false; // the port accepted a connection (Listening once the banner is read)
    Error m_failure;
    BoundedLog m_log;
    ChildProcessGuard m_childGuard;
};

// The ggml-rpc-server to run: $LLAMAFIT_GGML_RPC_SERVER, else the one beside `serverProgram`
// (the llama-server of the same build; llamatool.h), else ggml-rpc-server on the PATH.
QString defaultRpcServerProgram(const QString& serverProgram);

} // namespace llamafit

Q_DECLARE_METATYPE(llamafit::Error)

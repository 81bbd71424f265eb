#pragma once
// RpcServeGroup: "Serve this machine" in the Cluster dock (shown under a toggle there) -- starts a
// ggml-rpc-server for this machine's devices so a llama-server elsewhere (or here) can put layers on them
// with --rpc. A port (default 50052), the devices (-d; empty = the server's own choice), the address:
// 127.0.0.1 unless "Allow access from the network" is ticked (0.0.0.0), which shows llama.cpp's own warning
// (kRpcServerExposureWarning) beside it; Start / Stop and a status line (starting, listening on
// HOST:PORT with the devices and their free MiB, or the failure's message).
// The program is defaultRpcServerProgram(the llama-server the source names).
// Used by ClusterPanel. Owns the RpcServerProcess, which stops (and reaps) its server when this
// is destroyed -- with the window, so no server outlives LlamaFit. Thread: GUI.
// Object names: rpcServePort, rpcServeDevices, rpcServeExpose, rpcServeWarning, rpcServeStart,
// rpcServeStop, rpcServeStatus.

#include "core/system/rpcserverprocess.h"

#include <QWidget>

#include <functional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace llamafit {

class RpcServeGroup : public QWidget {
    Q_OBJECT
  public:
    explicit RpcServeGroup(QWidget* parent = nullptr);
    ~RpcServeGroup() override;

    // Where the llama-server path comes from (ClusterPanel: the one "Ask hosts" uses).
    void setServerProgramSource(std::function<QString()> source) { m_serverProgram = std::move(source); }
    // The options the fields give.
    RpcServerOptions options() const;
    RpcServerProcess* process() const { return m_process; }

    void start();
    void stop();

  private:
    void refresh();

    std::function<QString()> m_serverProgram;
    RpcServerProcess* m_process;
    QSpinBox* m_port;
    QLineEdit* m_devices;
    QCheckBox* m_expose;
    QLabel* m_warning;
    QPushButton* m_startButton;
    QPushButton* m_stopButton;
    QLabel* m_status;
};

} // namespace llamafit

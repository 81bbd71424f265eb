#pragma once
// ClusterPanel: the ggml-rpc-servers the model is split over besides this machine (llama-server
// --rpc), and how the layers are split over all the devices (-ts). A table of hosts (endpoint
// HOST:PORT, free MiB) with Add host / Remove host; "Ask hosts" runs the installed llama-server
// with `--rpc LIST --list-devices` on a worker thread (core/system/rpchostquery.h) and fills in
// the free memory each server reports, or shows llama.cpp's reason when it cannot ask them (a
// host not listening, another protocol version). A bad or repeated endpoint, or a host without
// its free memory, is named under the table and the session keeps the last complete list; a
// complete list goes to SizingSession::setRpcHosts at once. Under it, the -ts split
// (TensorSplitBar) and "Default (by free memory)", which clears -ts; "Best split" writes the -ts
// bestTensorSplit finds (core/sizing/splitsolver.h) and says which -c it and llama.cpp's default
// split fit. With RPC hosts, a line under the bar says what each token sends over the network
// (core/sizing/rpctraffic.h) and what that adds per token at 1, 2.5 and 10 Gbit/s. While a
// watched llama-server runs and is Ready, a line under the table gives each RPC host's buffers
// from the server's log against what it reported free and the prediction (core/server/rpchostusage.h).
// Below: "Serve this machine" (RpcServeGroup, folded away until its toggle is pressed: the dock is
// held to the panel's minimum height, which must fit a 1366x768 screen) and "Commands for another
// host" (RpcCommandsDialog).
// Used by MainWindow (the Cluster dock). Owns the query's worker thread; the destructor waits for
// it (at most the query's timeout). Thread: GUI. Units: MiB in the table, bytes in the session.
// Object names: clusterHostTable, addHostButton, removeHostButton, askHostsButton,
// clusterErrorLabel, clusterStatusLabel, tensorSplitBar, defaultSplitButton, tensorSplitLabel,
// bestSplitButton, bestSplitLabel, networkLabel, hostUsageLabel, serveToggle, rpcCommandsButton.

#include "core/common/result.h"
#include "core/machine/rpccluster.h"
#include "core/server/devicelist.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/system/serverprocess.h"

#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;
class QToolButton;
class QThread;

namespace llamafit {

class RpcServeGroup;
class SessionSpeed;
class SizingSession;
class TensorSplitBar;

class ClusterPanel : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kEndpointColumn = 0;
    static constexpr int kFreeColumn = 1;

    explicit ClusterPanel(SizingSession* session, QWidget* parent = nullptr);
    ~ClusterPanel() override;

    // Where "Ask hosts" finds llama-server (MainWindow: the launch panel's program). Without one:
    // $LLAMAFIT_LLAMA_SERVER, else "llama-server" on PATH.
    void setServerProgramSource(std::function<QString()> source) { m_serverProgram = std::move(source); }
    QString serverProgram() const;

    void addHost(const QString& endpoint, std::optional<std::uint64_t> freeMiB);
    void removeSelectedHost();
    void askHosts(); // asynchronous: emits hostsAsked when the answer is in
    bool isAsking() const { return m_askThread != nullptr; }

    TensorSplitBar* splitBar() const { return m_splitBar; }
    RpcServeGroup* serveGroup() const { return m_serveGroup; }

    // Writes the -ts bestTensorSplit finds for the session (its -c stays as it is).
    void applyBestSplit();
    // Follows `process` (MainWindow's llama-server): its prediction is the session's estimate at
    // Starting; at Ready its log is read into the per-host line; cleared when it stops.
    void watchServer(const ServerProcess* process);
    // The per-host line for `log` (a llama-server log) against `prediction`; the watched server's
    // log takes this path too. An empty log clears the line.
    void showServerLog(const std::string& log, const std::optional<MemoryEstimate>& prediction);

  signals:
    void hostsAsked(bool succeeded);

  private:
    void onTableEdited();
    void refreshFromSession();
    void onAskFinished();
    void showError(const QString& message);
    void showStatus(const QString& message);
    // The table's rows as hosts, or the first problem worded for the user.
    Result<std::vector<RpcHost>> hostsInTable() const;
    void refreshSplitLabel();
    void refreshNetworkLine();
    void openCommands();

    SizingSession* m_session;
    std::function<QString()> m_serverProgram;
    QTableWidget* m_table;
    QPushButton* m_addButton;
    QPushButton* m_removeButton;
    QPushButton* m_askButton;
    QLabel* m_errorLabel;
    QLabel* m_statusLabel;
    TensorSplitBar* m_splitBar;
    QPushButton* m_defaultSplitButton;
    QLabel* m_splitLabel;
    QPushButton* m_bestSplitButton;
    QLabel* m_bestSplitLabel;
    // The settings the best-split line was worked out for: another -c, cache type or split makes
    // its numbers stale, and it hides.
    std::optional<ServerSettings> m_bestSplitSettings;
    QLabel* m_networkLabel;
    QLabel* m_hostUsageLabel;
    QToolButton* m_serveToggle;
    QPushButton* m_commandsButton;
    RpcServeGroup* m_serveGroup;
    std::unique_ptr<SessionSpeed> m_speed;
    std::optional<MemoryEstimate> m_runPrediction; // the watched server's, from its Starting
    bool m_filling = false;                        // the table is being filled from the session or an answer
    QThread* m_askThread = nullptr;
    std::shared_ptr<Result<std::vector<ListedDevice>>> m_askResult;
};

} // namespace llamafit

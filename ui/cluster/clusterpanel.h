#pragma once
// ClusterPanel: the ggml-rpc-servers the model is split over besides this machine (llama-server
// --rpc), and how the layers are split over all the devices (-ts). A table of hosts (endpoint
// HOST:PORT, free MiB) with Add host / Remove host; "Ask hosts" runs the installed llama-server
// with `--rpc LIST --list-devices` on a worker thread (core/system/rpchostquery.h) and fills in
// the free memory each server reports, or shows llama.cpp's reason when it cannot ask them (a
// host not listening, another protocol version). A bad or repeated endpoint, or a host without
// its free memory, is named under the table and the session keeps the last complete list; a
// complete list goes to SizingSession::setRpcHosts at once. Under it, the -ts split
// (TensorSplitBar) and "Default (by free memory)", which clears -ts.
// Used by MainWindow (the Cluster dock). Owns the query's worker thread; the destructor waits for
// it (at most the query's timeout). Thread: GUI. Units: MiB in the table, bytes in the session.
// Object names: clusterHostTable, addHostButton, removeHostButton, askHostsButton,
// clusterErrorLabel, clusterStatusLabel, tensorSplitBar, defaultSplitButton, tensorSplitLabel.

#include "core/common/result.h"
#include "core/machine/rpccluster.h"
#include "core/server/devicelist.h"

#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;
class QThread;

namespace llamafit {

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

  signals:
    void hostsAsked(bool succeeded);

  private:
    void onTableEdited();
    void refreshFromSession();
    void onAskFinished();
    void showError(const QString& message);
    // The table's rows as hosts, or the first problem worded for the user.
    Result<std::vector<RpcHost>> hostsInTable() const;
    void refreshSplitLabel();

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
    bool m_filling = false; // the table is being filled from the session or an answer
    QThread* m_askThread = nullptr;
    std::shared_ptr<Result<std::vector<ListedDevice>>> m_askResult;
};

} // namespace llamafit

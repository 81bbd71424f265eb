// The cluster view in the composed app (issue 12 item 5): the Cluster dock sits beside the Machine
// dock; hosts entered there are planned (the memory chart's columns per host) and launched (--rpc
// in the launch panel's command line, -ts once a handle is dragged); another machine keeps them;
// "Ask hosts" asks the launch panel's llama-server; the next start restores them.
#include "tests/gui/app/mainwindowfixture.h"

#include "ui/charts/memorychart.h"
#include "ui/cluster/clusterpanel.h"
#include "ui/cluster/tensorsplitbar.h"
#include "ui/launch/launchpanel.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>

namespace llamafit {
namespace {

using MainWindowClusterTest = test::MainWindowFixture;

TEST_F(MainWindowClusterTest, HostsEnteredInTheClusterDockArePlannedAndLaunched) {
    openWindow();
    auto* clusterDock = child<QDockWidget>("clusterDock");
    ASSERT_NE(clusterDock, nullptr);
    EXPECT_TRUE(m_window->tabifiedDockWidgets(child<QDockWidget>("machineDock")).contains(clusterDock));
    auto* add = child<QPushButton>("addHostButton");
    auto* table = child<QTableWidget>("clusterHostTable");
    add->click();
    table->item(0, ClusterPanel::kFreeColumn)->setText(QStringLiteral("2048"));
    add->click();
    table->item(1, ClusterPanel::kFreeColumn)->setText(QStringLiteral("3072"));
    ASSERT_EQ(m_session->rpcHosts().size(), 2U);
    ASSERT_TRUE(m_session->estimate().ok()) << m_session->estimate().error().message;

    EXPECT_EQ(m_window->findChild<MemoryChart*>()->hostLabels(),
              (QStringList{QStringLiteral("this machine"), QStringLiteral("127.0.0.1:50052"),
                           QStringLiteral("127.0.0.1:50053")}));
    auto* command = child<QLineEdit>("commandLineEdit");
    EXPECT_TRUE(command->text().contains(QStringLiteral("--rpc 127.0.0.1:50052,127.0.0.1:50053")))
        << command->text().toStdString();
    EXPECT_FALSE(command->text().contains(QStringLiteral("-ts "))) << command->text().toStdString();

    // A keyboard step on the split bar writes -ts, which the command line carries.
    auto* bar = child<TensorSplitBar>("tensorSplitBar");
    clusterDock->raise();
    QTest::keyClick(bar, Qt::Key_Right);
    ASSERT_EQ(m_session->settings().tensorSplit.size(), 3U);
    EXPECT_TRUE(command->text().contains(QStringLiteral("-ts "))) << command->text().toStdString();

    // Another machine keeps the hosts (the split goes back to the default: a device count change).
    auto* machines = child<QComboBox>("machineCombo");
    machines->setCurrentIndex(machines->findData(QStringLiteral("rtx-4060-8gb")));
    EXPECT_EQ(m_session->machine().id, "rtx-4060-8gb");
    EXPECT_EQ(m_session->rpcHosts().size(), 2U);
    EXPECT_EQ(table->rowCount(), 2);
    EXPECT_TRUE(command->text().contains(QStringLiteral("--rpc 127.0.0.1:50052,127.0.0.1:50053")))
        << command->text().toStdString();

    // "Ask hosts" asks the llama-server the launch panel would start.
    auto* binary = child<QLineEdit>("serverBinaryEdit");
    binary->setText(QStringLiteral("/opt/llama/bin/llama-server"));
    emit binary->editingFinished();
    EXPECT_EQ(m_window->findChild<ClusterPanel*>()->serverProgram(),
              QStringLiteral("/opt/llama/bin/llama-server"));

    // The next start plans the same cluster.
    const std::vector<RpcHost> hosts = m_session->rpcHosts();
    closeWindow();
    openSettings();
    openWindow();
    EXPECT_EQ(m_session->rpcHosts(), hosts);
    EXPECT_EQ(child<QTableWidget>("clusterHostTable")->rowCount(), 2);
}

} // namespace
} // namespace llamafit

// ClusterPanel: the host table writes the session's RPC hosts once a row is complete, names a bad
// row under the table, follows the session, and "Ask hosts" fills in the free memory llama-server
// lists (here a stand-in script that prints what llama-server 0.7.0 prints) or shows why it could not.
#include "core/common/units.h"
#include "ui/cluster/clusterpanel.h"

#include "core/machine/machineprofile.h"
#include "ui/cluster/tensorsplitbar.h"
#include "ui/sizingsession.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

struct PanelFixture {
    SizingSession session{*findBuiltinMachine(defaultMachineId())};
    ClusterPanel panel{&session};
    QTableWidget* table() const { return panel.findChild<QTableWidget*>(QStringLiteral("clusterHostTable")); }
    QLabel* error() const { return panel.findChild<QLabel*>(QStringLiteral("clusterErrorLabel")); }
    QPushButton* button(const char* name) const {
        return panel.findChild<QPushButton*>(QString::fromLatin1(name));
    }
    void setCell(int row, int column, const QString& text) { table()->item(row, column)->setText(text); }
};

// An executable shell script standing in for llama-server: prints `output`, exits with `status`.
QString fakeServer(const QTemporaryDir& directory, const QString& output, int status) {
    const QString path = directory.filePath(QStringLiteral("llama-server"));
    QFile script(path);
    EXPECT_TRUE(script.open(QIODevice::WriteOnly));
    script.write(
        QStringLiteral("#!/bin/sh\ncat <<'LISTING'\n%1LISTING\nexit %2\n").arg(output).arg(status).toUtf8());
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

TEST(ClusterPanel, ACompleteRowBecomesASessionHost) {
    PanelFixture fixture;
    fixture.button("addHostButton")->click();
    ASSERT_EQ(fixture.table()->rowCount(), 1);
    EXPECT_EQ(fixture.table()->item(0, ClusterPanel::kEndpointColumn)->text(),
              QStringLiteral("127.0.0.1:50052"));
    // No free memory yet: named, and not planned.
    EXPECT_FALSE(fixture.error()->isHidden());
    EXPECT_TRUE(fixture.error()->text().contains(QStringLiteral("127.0.0.1:50052")));
    EXPECT_TRUE(fixture.session.rpcHosts().empty());
    fixture.setCell(0, ClusterPanel::kFreeColumn, QStringLiteral("2048"));
    EXPECT_TRUE(fixture.error()->isHidden());
    EXPECT_EQ(fixture.session.rpcHosts(), (std::vector<RpcHost>{{"127.0.0.1:50052", 2048 * kMiB}}));
    EXPECT_EQ(fixture.session.settings().rpcServers, (std::vector<std::string>{"127.0.0.1:50052"}));
    // The next row takes the next port.
    fixture.button("addHostButton")->click();
    EXPECT_EQ(fixture.table()->item(1, ClusterPanel::kEndpointColumn)->text(),
              QStringLiteral("127.0.0.1:50053"));
}

TEST(ClusterPanel, ABadOrRepeatedEndpointIsNamedAndTheSessionKeepsItsHosts) {
    PanelFixture fixture;
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50052"), 2048);
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50053"), 3072);
    const std::vector<RpcHost> planned = fixture.session.rpcHosts();
    ASSERT_EQ(planned.size(), 2U);
    fixture.setCell(1, ClusterPanel::kEndpointColumn, QStringLiteral("127.0.0.1"));
    EXPECT_FALSE(fixture.error()->isHidden());
    EXPECT_TRUE(fixture.error()->text().startsWith(QStringLiteral("Host 2: ")))
        << fixture.error()->text().toStdString();
    EXPECT_EQ(fixture.session.rpcHosts(), planned);
    fixture.setCell(1, ClusterPanel::kEndpointColumn, QStringLiteral("127.0.0.1:50052"));
    EXPECT_TRUE(fixture.error()->text().contains(QStringLiteral("twice")))
        << fixture.error()->text().toStdString();
    fixture.setCell(1, ClusterPanel::kFreeColumn, QStringLiteral("lots"));
    fixture.setCell(1, ClusterPanel::kEndpointColumn, QStringLiteral("10.0.0.2:50052"));
    EXPECT_TRUE(fixture.error()->text().contains(QStringLiteral("lots")))
        << fixture.error()->text().toStdString();
    EXPECT_EQ(fixture.session.rpcHosts(), planned);
    fixture.setCell(1, ClusterPanel::kFreeColumn, QStringLiteral("4096"));
    EXPECT_TRUE(fixture.error()->isHidden());
    EXPECT_EQ(fixture.session.rpcHosts().at(1), (RpcHost{"10.0.0.2:50052", 4096 * kMiB}));
}

TEST(ClusterPanel, RemoveHostDropsTheSelectedRow) {
    PanelFixture fixture;
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50052"), 2048);
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50053"), 3072);
    fixture.table()->setCurrentCell(0, 0);
    fixture.button("removeHostButton")->click();
    EXPECT_EQ(fixture.session.rpcHosts(), (std::vector<RpcHost>{{"127.0.0.1:50053", 3072 * kMiB}}));
    fixture.button("removeHostButton")->click();
    EXPECT_TRUE(fixture.session.rpcHosts().empty());
    EXPECT_FALSE(fixture.button("removeHostButton")->isEnabled());
}

TEST(ClusterPanel, TheTableFollowsTheSessionAndAnotherMachineKeepsIt) {
    PanelFixture fixture;
    fixture.session.setRpcHosts({{"192.168.1.20:50052", 8192 * kMiB}});
    ASSERT_EQ(fixture.table()->rowCount(), 1);
    EXPECT_EQ(fixture.table()->item(0, ClusterPanel::kFreeColumn)->text(), QStringLiteral("8192"));
    fixture.session.setMachine(*findBuiltinMachine("rtx-4060-8gb"));
    EXPECT_EQ(fixture.table()->rowCount(), 1);
    EXPECT_EQ(fixture.session.rpcHosts().size(), 1U);
}

TEST(ClusterPanel, DefaultSplitClearsTheTensorSplit) {
    PanelFixture fixture;
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50052"), 2048);
    ServerSettings settings = fixture.session.settings();
    settings.tensorSplit = {30, 70};
    fixture.session.setSettings(settings);
    auto* label = fixture.panel.findChild<QLabel*>(QStringLiteral("tensorSplitLabel"));
    EXPECT_EQ(label->text(), QStringLiteral("-ts 30,70"));
    ASSERT_TRUE(fixture.button("defaultSplitButton")->isEnabled());
    fixture.button("defaultSplitButton")->click();
    EXPECT_TRUE(fixture.session.settings().tensorSplit.empty());
    EXPECT_TRUE(fixture.panel.splitBar()->isDefaultSplit());
    EXPECT_FALSE(fixture.button("defaultSplitButton")->isEnabled());
}

TEST(ClusterPanel, AskHostsFillsInTheFreeMemoryLlamaServerLists) {
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    PanelFixture fixture;
    fixture.panel.setServerProgramSource([&] {
        return fakeServer(
            directory,
            QStringLiteral("Available devices:\n"
                           "  RPC0: 127.0.0.1:50052 (24105 MiB, 20000 MiB free)\n"
                           "  RPC1: 127.0.0.1:50053 (8192 MiB, 6000 MiB free)\n"
                           "  Vulkan0: llvmpipe (LLVM 15.0.6, 256 bits) (2048 MiB, 2048 MiB free)\n"),
            0);
    });
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50052"), std::nullopt);
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50053"), 1);
    QSignalSpy asked(&fixture.panel, &ClusterPanel::hostsAsked);
    fixture.button("askHostsButton")->click();
    EXPECT_FALSE(fixture.button("askHostsButton")->isEnabled()); // one question at a time
    ASSERT_TRUE(asked.wait(20000));
    EXPECT_TRUE(asked.at(0).at(0).toBool());
    EXPECT_TRUE(fixture.button("askHostsButton")->isEnabled());
    EXPECT_EQ(fixture.table()->item(0, ClusterPanel::kFreeColumn)->text(), QStringLiteral("20000"));
    EXPECT_EQ(fixture.table()->item(1, ClusterPanel::kFreeColumn)->text(), QStringLiteral("6000"));
    EXPECT_EQ(fixture.session.rpcHosts(),
              (std::vector<RpcHost>{{"127.0.0.1:50052", 20000 * kMiB}, {"127.0.0.1:50053", 6000 * kMiB}}));
    EXPECT_TRUE(fixture.error()->isHidden());
}

TEST(ClusterPanel, AskHostsShowsLlamaCppsReasonWhenAHostIsNotListening) {
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    PanelFixture fixture;
    const QString program = fakeServer(
        directory,
        QStringLiteral("/ggml/src/ggml-rpc/ggml-rpc.cpp:600: Failed to connect to 127.0.0.1:50052\n"), 134);
    fixture.panel.setServerProgramSource([program] { return program; });
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50052"), 2048);
    QSignalSpy asked(&fixture.panel, &ClusterPanel::hostsAsked);
    fixture.panel.askHosts();
    ASSERT_TRUE(asked.wait(20000));
    EXPECT_FALSE(asked.at(0).at(0).toBool());
    EXPECT_FALSE(fixture.error()->isHidden());
    EXPECT_TRUE(fixture.error()->text().contains(QStringLiteral("nothing is listening at 127.0.0.1:50052")))
        << fixture.error()->text().toStdString();
    EXPECT_EQ(fixture.session.rpcHosts(), (std::vector<RpcHost>{{"127.0.0.1:50052", 2048 * kMiB}}));
}

TEST(ClusterPanel, AskHostsSaysWhenLlamaServerDoesNotStart) {
    PanelFixture fixture;
    fixture.panel.setServerProgramSource([] { return QStringLiteral("/nonexistent/llama-server"); });
    EXPECT_EQ(fixture.panel.serverProgram(), QStringLiteral("/nonexistent/llama-server"));
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50052"), 2048);
    QSignalSpy asked(&fixture.panel, &ClusterPanel::hostsAsked);
    fixture.panel.askHosts();
    ASSERT_TRUE(asked.wait(20000));
    EXPECT_FALSE(asked.at(0).at(0).toBool());
    EXPECT_TRUE(fixture.error()->text().contains(QStringLiteral("/nonexistent/llama-server")))
        << fixture.error()->text().toStdString();
}

} // namespace
} // namespace llamafit

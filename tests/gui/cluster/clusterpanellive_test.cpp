// ClusterPanel against the real thing: "Ask hosts" runs the GPU rig's llama-server (the build
// scripts/fetch-llama-server.sh unpacks) with --rpc --list-devices against real ggml-rpc-servers on
// 127.0.0.1 (-d CPU, free ports), and fills in the free memory they report; against a port where
// nothing listens it shows the reason llama.cpp's abort gives, worded by the core.
#include "ui/cluster/clusterpanel.h"

#include "core/machine/machineprofile.h"
#include "core/system/rpchostquery.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/rpcserverrun.h"
#include "ui/sizingsession.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTcpServer>

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

constexpr std::uint64_t kMiB = 1024ULL * 1024;

class ClusterPanelLiveTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        Result<std::string> server = test::findGpuLlamaServer();
        Result<std::string> rpcServer = test::findRpcServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        ASSERT_TRUE(rpcServer.ok()) << rpcServer.error().message;
        m_server = QString::fromStdString(*server);
        m_rpcServer = *rpcServer;
        m_panel.setServerProgramSource([this] { return m_server; });
    }

    // Asks the hosts in the table and waits for the answer.
    bool ask() {
        QSignalSpy asked(&m_panel, &ClusterPanel::hostsAsked);
        m_panel.askHosts();
        return asked.wait(60000) && asked.at(0).at(0).toBool();
    }
    QString error() const { return m_panel.findChild<QLabel*>(QStringLiteral("clusterErrorLabel"))->text(); }

    SizingSession m_session{*findBuiltinMachine(defaultMachineId())};
    ClusterPanel m_panel{&m_session};
    QString m_server;
    std::string m_rpcServer;
};

TEST_F(ClusterPanelLiveTest, AskHostsFillsInWhatRealRpcServersReport) {
    auto first = test::RpcServerRun::start(m_rpcServer, {});
    auto second = test::RpcServerRun::start(m_rpcServer, {});
    ASSERT_TRUE(first.ok()) << first.error().message;
    ASSERT_TRUE(second.ok()) << second.error().message;
    const std::vector<std::string> endpoints{(*first)->endpoint(), (*second)->endpoint()};
    for (const std::string& endpoint : endpoints) {
        m_panel.addHost(QString::fromStdString(endpoint), std::nullopt);
    }
    ASSERT_TRUE(m_session.rpcHosts().empty()); // no free memory yet
    ASSERT_TRUE(ask()) << error().toStdString();

    // What the panel filled in is what llama-server lists for each server.
    RpcHostQuery query{m_server.toStdString(), endpoints};
    const Result<std::vector<ListedDevice>> listed = queryListedDevices(query);
    ASSERT_TRUE(listed.ok()) << listed.error().message;
    const std::vector<RpcHost>& hosts = m_session.rpcHosts();
    ASSERT_EQ(hosts.size(), 2U);
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        EXPECT_EQ(hosts[i].endpoint, endpoints[i]);
        EXPECT_GT(hosts[i].freeBytes, 0U);
        const auto device = std::find_if(listed->begin(), listed->end(), [&](const ListedDevice& d) {
            return d.description == endpoints[i];
        });
        ASSERT_NE(device, listed->end()) << endpoints[i];
        EXPECT_EQ(hosts[i].freeBytes, device->freeBytes / kMiB * kMiB);
    }
    EXPECT_TRUE(m_session.estimate().ok()) << m_session.estimate().error().message;
}

TEST_F(ClusterPanelLiveTest, AskHostsNamesAHostWhereNothingListens) {
    QTcpServer probe; // a port that was free a moment ago, closed again: nothing listens there
    ASSERT_TRUE(probe.listen(QHostAddress::LocalHost, 0));
    const QString endpoint = QStringLiteral("127.0.0.1:%1").arg(probe.serverPort());
    probe.close();
    m_panel.addHost(endpoint, 2048);
    EXPECT_FALSE(ask());
    EXPECT_TRUE(error().contains(QStringLiteral("nothing is listening at ") + endpoint))
        << error().toStdString();
    EXPECT_EQ(m_session.rpcHosts(), (std::vector<RpcHost>{{endpoint.toStdString(), 2048 * kMiB}}));
}

} // namespace
} // namespace llamafit

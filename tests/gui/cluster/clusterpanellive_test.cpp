// ClusterPanel against the real thing: "Ask hosts" runs the GPU rig's llama-server (the build
// scripts/fetch-llama-server.sh unpacks) with --rpc --list-devices against real ggml-rpc-servers on
// 127.0.0.1 (-d CPU, free ports), and fills in the free memory they report; against a port where
// nothing listens it shows the reason llama.cpp's abort gives, worded by the core. A llama-server
// run with --rpc over two of them, watched by the panel, gives the per-host line once Ready.
#include "core/common/units.h"
#include "ui/cluster/clusterpanel.h"

#include "core/machine/machineprofile.h"
#include "core/system/rpchostquery.h"
#include "core/system/serverprocess.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/modelfiles.h"
#include "tests/support/rpcserverrun.h"
#include "ui/sizingsession.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTcpServer>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace llamafit {
namespace {

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

// Runs the event loop until `done` or the deadline (ServerProcess's health probe keeps events coming).
bool waitUntil(const std::function<bool()>& done, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired()) {
            return false;
        }
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
    }
    return true;
}

TEST_F(ClusterPanelLiveTest, AWatchedServerWithRpcHostsGivesEachHostsMemoryOnceReady) {
    auto first = test::RpcServerRun::start(m_rpcServer, {{"GGML_VK_VISIBLE_DEVICES", ""}});
    auto second = test::RpcServerRun::start(m_rpcServer, {{"GGML_VK_VISIBLE_DEVICES", ""}});
    ASSERT_TRUE(first.ok()) << first.error().message;
    ASSERT_TRUE(second.ok()) << second.error().message;
    const QString endpoints =
        QString::fromStdString((*first)->endpoint()) + u',' + QString::fromStdString((*second)->endpoint());
    QTemporaryDir directory;
    const std::string model = directory.filePath(QStringLiteral("tiny.gguf")).toStdString();
    ASSERT_TRUE(test::writeTinyModel(model).ok());

    ServerProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("GGML_VK_VISIBLE_DEVICES"), QString()); // RPC hosts and the CPU only
    process.setEnvironment(environment);
    m_panel.watchServer(&process);
    auto* usage = m_panel.findChild<QLabel*>(QStringLiteral("hostUsageLabel"));
    ASSERT_NE(usage, nullptr);
    ASSERT_TRUE(
        process.start(m_server, {QStringLiteral("-m"), QString::fromStdString(model), QStringLiteral("-c"),
                                 QStringLiteral("1024"), QStringLiteral("-t"), QStringLiteral("2"),
                                 QStringLiteral("--no-warmup"), QStringLiteral("-lv"), QStringLiteral("4"),
                                 QStringLiteral("--rpc"), endpoints}));
    const bool ready = waitUntil(
        [&] {
            return process.state() == ServerProcess::State::Ready ||
                   process.state() == ServerProcess::State::Failed;
        },
        60000);
    EXPECT_TRUE(ready && process.state() == ServerProcess::State::Ready) << process.log();
    if (process.state() == ServerProcess::State::Ready) {
        EXPECT_FALSE(usage->isHidden());
        EXPECT_TRUE(
            usage->text().contains(QString::fromStdString((*first)->endpoint()) + QStringLiteral(" (RPC")))
            << usage->text().toStdString();
        EXPECT_TRUE(
            usage->text().contains(QString::fromStdString((*second)->endpoint()) + QStringLiteral(" (RPC")))
            << usage->text().toStdString();
        EXPECT_TRUE(usage->text().contains(QStringLiteral(" MiB allocated of ")))
            << usage->text().toStdString();
    }
    process.stop();
    EXPECT_TRUE(waitUntil([&] { return process.state() == ServerProcess::State::Stopped; }, 15000));
    EXPECT_TRUE(usage->isHidden()) << "the line goes with the server";
}

} // namespace
} // namespace llamafit

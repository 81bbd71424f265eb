// llama-server --rpc started by ServerProcess (core/system) with the GPU rig's build, on the tiny
// real model, against real ggml-rpc-server on 127.0.0.1 (never another address): a port with
// nothing listening fails by name at start, and a server killed mid-run is named as the lost host
// (issue 12 item 4). Waits through QSignalSpy with deadlines (never sleeps); the rpc-servers are
// stopped and reaped by RpcServerRun whatever happens.

#include "tests/integration/serverprocessfixture.h"
#include "tests/support/rpcserverrun.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcessEnvironment>
#include <QTimer>

#include <memory>

namespace llamafit {
namespace {

using State = ServerProcess::State;

class RpcLaunchTest : public test::ServerProcessFixture {
  protected:
    RpcLaunchTest() : ServerProcessFixture("rpc-tiny.gguf") {}

    void SetUp() override {
        ServerProcessFixture::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        const auto server = test::findGpuLlamaServer(); // the build with the RPC backend
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = QString::fromStdString(*server);
        const auto rpcServer = test::findRpcServer();
        ASSERT_TRUE(rpcServer.ok()) << rpcServer.error().message;
        m_rpcServer = *rpcServer;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("GGML_VK_VISIBLE_DEVICES"), QString()); // the RPC servers only
        m_process.setEnvironment(environment);
    }

    std::unique_ptr<test::RpcServerRun> startRpcServer() {
        auto started = test::RpcServerRun::start(m_rpcServer, {{"GGML_VK_VISIBLE_DEVICES", ""}});
        EXPECT_TRUE(started.ok()) << started.error().message;
        return started.ok() ? std::move(*started) : nullptr;
    }

    QStringList argsWith(const std::string& rpcList) const {
        return {QStringLiteral("-m"),    QString::fromStdString(m_model), QStringLiteral("-c"),
                QStringLiteral("512"),   QStringLiteral("-np"),           QStringLiteral("1"),
                QStringLiteral("-ngl"),  QStringLiteral("all"),           QStringLiteral("-fit"),
                QStringLiteral("off"),   QStringLiteral("--no-warmup"),   QStringLiteral("-t"),
                QStringLiteral("1"),     QStringLiteral("-lv"),           QStringLiteral("4"),
                QStringLiteral("--rpc"), QString::fromStdString(rpcList)};
    }

    std::string m_rpcServer;
};

TEST_F(RpcLaunchTest, AnRpcPortWithNothingListeningFailsByName) {
    std::string gone;
    {
        auto server = startRpcServer();
        ASSERT_NE(server, nullptr);
        gone = server->endpoint();
    } // stopped and reaped: nothing listens there now
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, argsWith(gone)));
    waitForState(spy, State::Ready, 60000);
    ASSERT_EQ(m_process.state(), State::Failed) << m_process.log();
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::RpcHostUnreachable)
        << m_process.failure().message;
    EXPECT_EQ(m_process.failure().rpcEndpoint, gone);
    EXPECT_NE(m_process.failure().message.find("nothing is listening at " + gone), std::string::npos)
        << m_process.failure().message;
}

TEST_F(RpcLaunchTest, AServerKilledMidRunIsNamedAsTheLostHost) {
    auto first = startRpcServer();
    auto second = startRpcServer();
    ASSERT_TRUE(first && second);
    const std::string lost = second->endpoint();
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, argsWith(first->endpoint() + "," + lost)));
    ASSERT_TRUE(waitForState(spy, State::Ready, 60000)) << m_process.failure().message << "\n"
                                                        << m_process.log();
    EXPECT_NE(m_process.log().find("RPC0[" + lost + "]"), std::string::npos)
        << "the second server holds layers";

    second.reset(); // the host goes away
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QUrl url = m_process.baseUrl();
    url.setPath(QStringLiteral("/completion"));
    QJsonObject body;
    body.insert(QStringLiteral("prompt"), QStringLiteral("one host is gone"));
    body.insert(QStringLiteral("n_predict"), 8);
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply* reply = network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    waitForState(spy, State::Failed, 60000);
    reply->abort();
    reply->deleteLater();
    ASSERT_EQ(m_process.state(), State::Failed) << m_process.log();
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::RpcHostLost) << m_process.failure().message;
    EXPECT_EQ(m_process.failure().rpcEndpoint, lost);
    EXPECT_NE(m_process.failure().message.find("lost RPC host " + lost), std::string::npos)
        << m_process.failure().message;
}

} // namespace
} // namespace llamafit

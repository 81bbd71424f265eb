// RpcServeGroup ("Serve this machine") with the GPU rig's real ggml-rpc-server, found beside its
// llama-server as the app finds it (defaultRpcServerProgram), on 127.0.0.1 with -d CPU: Start shows
// it listening with its device, Stop ends the process; a port another program holds is named.
// Also, without any server: the exposure checkbox shows llama.cpp's warning and binds 0.0.0.0.
#include "ui/cluster/rpcservegroup.h"

#include "core/system/serverprocess.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/rpcserverrun.h"

#include <QCheckBox>
#include <QDeadlineTimer>
#include <QHostAddress>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTcpServer>
#include <QTest>

#include <gtest/gtest.h>

#include <csignal>

namespace llamafit {
namespace {

using State = RpcServerProcess::State;

QLabel* status(const RpcServeGroup& group) {
    return group.findChild<QLabel*>(QStringLiteral("rpcServeStatus"));
}

TEST(RpcServeGroup, ExposureShowsLlamaCppsWarningAndBindsAnyAddress) {
    RpcServeGroup group;
    group.show();
    auto* expose = group.findChild<QCheckBox*>(QStringLiteral("rpcServeExpose"));
    auto* warning = group.findChild<QLabel*>(QStringLiteral("rpcServeWarning"));
    EXPECT_EQ(group.options().host, "127.0.0.1");
    EXPECT_EQ(group.options().port, kDefaultRpcServerPort);
    EXPECT_TRUE(group.options().devices.empty());
    EXPECT_FALSE(warning->isVisible());
    expose->setChecked(true);
    EXPECT_TRUE(warning->isVisible());
    EXPECT_EQ(warning->text().toStdString(), kRpcServerExposureWarning);
    EXPECT_EQ(group.options().host, "0.0.0.0");
    group.findChild<QLineEdit*>(QStringLiteral("rpcServeDevices"))->setText(QStringLiteral("CPU, Vulkan0"));
    EXPECT_EQ(group.options().devices, (std::vector<std::string>{"CPU", "Vulkan0"}));
}

class RpcServeGroupLiveTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const Result<std::string> server = test::findGpuLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = QString::fromStdString(*server);
        if (!test::findRpcServer().ok()) {
            GTEST_SKIP() << LLAMAFIT_LIVE_SERVER_SKIP_TEXT << "no ggml-rpc-server beside " << *server;
        }
        m_group.setServerProgramSource([this] { return m_server; });
        m_group.findChild<QLineEdit*>(QStringLiteral("rpcServeDevices"))->setText(QStringLiteral("CPU"));
    }
    void TearDown() override { m_group.stop(); }

    void setPort(std::uint16_t port) {
        m_group.findChild<QSpinBox*>(QStringLiteral("rpcServePort"))->setValue(port);
    }
    QPushButton* button(const char* name) const {
        return m_group.findChild<QPushButton*>(QString::fromLatin1(name));
    }
    // Waits for `target` (or Failed); true when `target` was reached.
    bool waitFor(State target, int timeoutMs) {
        QSignalSpy spy(m_group.process(), &RpcServerProcess::stateChanged);
        QDeadlineTimer deadline(timeoutMs);
        while (m_group.process()->state() != target) {
            if (m_group.process()->state() == State::Failed || deadline.hasExpired() ||
                !spy.wait(static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1)))) {
                return m_group.process()->state() == target;
            }
        }
        return true;
    }

    QString m_server;
    RpcServeGroup m_group;
};

TEST_F(RpcServeGroupLiveTest, StartShowsItListeningAndStopEndsIt) {
    const std::uint16_t port = ServerProcess::pickFreePort();
    setPort(port);
    button("rpcServeStart")->click();
    ASSERT_TRUE(waitFor(State::Listening, 30000)) << m_group.process()->failure().message;
    const QString text = status(m_group)->text();
    EXPECT_TRUE(text.startsWith(QStringLiteral("Listening on 127.0.0.1:%1: CPU (").arg(port)))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral(" MiB free)"))) << text.toStdString();
    EXPECT_FALSE(button("rpcServeStart")->isEnabled());
    const auto pid = static_cast<pid_t>(m_group.process()->processId());
    ASSERT_GT(pid, 0);
    button("rpcServeStop")->click();
    ASSERT_TRUE(waitFor(State::Stopped, 15000));
    EXPECT_EQ(status(m_group)->text(), QStringLiteral("Not serving."));
    EXPECT_EQ(::kill(pid, 0), -1) << "ggml-rpc-server " << pid << " still exists after Stop";
    EXPECT_TRUE(button("rpcServeStart")->isEnabled());
}

TEST_F(RpcServeGroupLiveTest, AHeldPortIsNamed) {
    QTcpServer holder;
    ASSERT_TRUE(holder.listen(QHostAddress::LocalHost, 0));
    setPort(holder.serverPort());
    button("rpcServeStart")->click();
    ASSERT_EQ(m_group.process()->state(), State::Failed);
    EXPECT_EQ(m_group.process()->failure().code, "rpc-server.port-in-use");
    const QString text = status(m_group)->text();
    EXPECT_TRUE(text.startsWith(
        QStringLiteral("Failed: ggml-rpc-server could not listen on 127.0.0.1:%1").arg(holder.serverPort())))
        << text.toStdString();
    EXPECT_TRUE(button("rpcServeStart")->isEnabled());
}

} // namespace
} // namespace llamafit

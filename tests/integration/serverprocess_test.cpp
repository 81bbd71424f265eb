// ServerProcess and ServerProbe against the real llama-server 0.7.0 on the tiny real-weight
// model: the state sequence of a clean start and stop, each failure provoked for real (crash
// by SIGKILL, hang by SIGSTOP, port held by a test socket, missing binary) with its named
// reason and the log kept, the monitor's samples, and no orphan when the app itself is
// SIGKILLed. Everything waits on signals (QSignalSpy::wait) or a pidfd, never on sleeps.

#include "core/system/serverprobe.h"
#include "core/system/serverprocess.h"
#include "tests/integration/serverprocessfixture.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <QDeadlineTimer>
#include <QHostAddress>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace llamafit {
namespace {

using State = ServerProcess::State;

class ServerProcessTest : public test::ServerProcessFixture {
  protected:
    ServerProcessTest() : ServerProcessFixture("process-tiny.gguf") {}

    QStringList tinyArgs() const {
        return {QStringLiteral("-m"),  QString::fromStdString(m_model), QStringLiteral("-c"),
                QStringLiteral("512"), QStringLiteral("--no-warmup"),   QStringLiteral("-t"),
                QStringLiteral("1"),   QStringLiteral("--metrics")};
    }

    static std::vector<State> statesOf(const QSignalSpy& spy) {
        std::vector<State> states;
        for (const QList<QVariant>& arguments : spy) {
            states.push_back(arguments.at(0).value<State>());
        }
        return states;
    }
};

TEST_F(ServerProcessTest, StartsLoadsBecomesReadyAndStops) {
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, tinyArgs()));
    ASSERT_TRUE(waitForState(spy, State::Ready, 60000)) << m_process.failure().message << "\n"
                                                        << m_process.log();
    EXPECT_TRUE(m_process.arguments().contains(QStringLiteral("127.0.0.1")));
    EXPECT_NE(m_process.port(), 0);
    const qint64 pid = m_process.processId();
    ASSERT_GT(pid, 0);

    m_process.stop();
    ASSERT_TRUE(waitForState(spy, State::Stopped, 15000)) << m_process.log();
    std::vector<State> states = statesOf(spy);
    // Loading is seen only when a /health poll lands inside the tiny model's short load.
    std::erase(states, State::Loading);
    EXPECT_EQ(states, (std::vector<State>{State::Starting, State::Ready, State::Stopping, State::Stopped}));
    EXPECT_NE(m_process.log().find("model loaded"), std::string::npos);
    EXPECT_EQ(::kill(static_cast<pid_t>(pid), 0), -1) << "the server still exists after stop()";
}

TEST_F(ServerProcessTest, ProbeSamplesHealthPropsSlotsAndMetrics) {
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, tinyArgs()));
    ASSERT_TRUE(waitForState(spy, State::Ready, 60000)) << m_process.failure().message;
    ServerProbe probe(m_process.baseUrl(), 16);
    probe.setInterval(std::chrono::milliseconds(100));
    probe.setProcessId(m_process.processId());
    QSignalSpy sampled(&probe, &ServerProbe::sampled);
    QSignalSpy failedRequests(&probe, &ServerProbe::requestFailed);
    probe.start();
    QDeadlineTimer deadline(20000);
    while ((probe.metrics().size() < 2 || probe.slotStates().size() < 2 || !probe.props()) &&
           !deadline.hasExpired()) {
        sampled.wait(1000);
    }
    probe.stop();
    ASSERT_TRUE(probe.props().has_value());
    EXPECT_EQ(probe.props()->totalSlots, 4u); // -np unset = auto = 4 slots in 0.7.0
    ASSERT_GE(probe.slotStates().size(), 2u);
    EXPECT_EQ(probe.slotStates().latest().value.size(), 4u);
    EXPECT_EQ(probe.slotStates().latest().value[0].nCtx, 512u); // unified KV: every slot sees n_ctx
    ASSERT_GE(probe.metrics().size(), 2u);
    EXPECT_GE(probe.totalThroughputs().size(), 1u);
    EXPECT_GE(probe.slotThroughputs().size(), 1u);
    EXPECT_EQ(probe.health().latest().value, HealthStatus::Ready);
    ASSERT_FALSE(probe.processRss().empty());
    EXPECT_GT(probe.processRss().latest().value, 1024u * 1024u);
    EXPECT_EQ(failedRequests.count(), 0);
    EXPECT_FALSE(probe.anySlotBusy());
}

TEST_F(ServerProcessTest, SigkillIsACrashWithTheLogKept) {
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    QSignalSpy failed(&m_process, &ServerProcess::failed);
    ASSERT_TRUE(m_process.start(m_server, tinyArgs()));
    ASSERT_TRUE(waitForState(spy, State::Ready, 60000)) << m_process.failure().message;
    ASSERT_EQ(::kill(static_cast<pid_t>(m_process.processId()), SIGKILL), 0);
    ASSERT_TRUE(waitForState(spy, State::Failed, 15000));
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::CrashedBySignal)
        << m_process.failure().message;
    EXPECT_NE(m_process.failure().log.find("model loaded"), std::string::npos);
    ASSERT_EQ(failed.count(), 1);
    EXPECT_EQ(failed.at(0).at(0).value<LaunchFailure>().reason, LaunchFailureReason::CrashedBySignal);
}

TEST_F(ServerProcessTest, SigstopIsAHangAndTheServerIsKilled) {
    ServerProcess::Timing timing;
    timing.healthInterval = std::chrono::milliseconds(100);
    timing.requestTimeout = std::chrono::milliseconds(300);
    timing.unresponsiveLimit = std::chrono::milliseconds(1500);
    m_process.setTiming(timing);
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, tinyArgs()));
    ASSERT_TRUE(waitForState(spy, State::Ready, 60000)) << m_process.failure().message;
    const auto pid = static_cast<pid_t>(m_process.processId());
    ASSERT_EQ(::kill(pid, SIGSTOP), 0);
    ASSERT_TRUE(waitForState(spy, State::Failed, 20000));
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::Hang);
    EXPECT_NE(m_process.failure().log.find("model loaded"), std::string::npos);
}

TEST_F(ServerProcessTest, HeldPortIsPortInUse) {
    QTcpServer holder;
    ASSERT_TRUE(holder.listen(QHostAddress::LocalHost, 0));
    QStringList args = tinyArgs();
    args << QStringLiteral("--port") << QString::number(holder.serverPort());
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, args));
    ASSERT_TRUE(waitForState(spy, State::Failed, 60000)) << m_process.log();
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::PortInUse) << m_process.failure().message;
    EXPECT_EQ(m_process.failure().port, std::optional<std::uint32_t>(holder.serverPort()));
    EXPECT_FALSE(m_process.failure().log.empty());
}

TEST_F(ServerProcessTest, MissingBinaryIsBinaryMissing) {
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(QStringLiteral("/nonexistent/llamafit/llama-server"), tinyArgs()));
    ASSERT_TRUE(waitForState(spy, State::Failed, 10000));
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::BinaryMissing) << m_process.failure().message;
    EXPECT_EQ(statesOf(spy), (std::vector<State>{State::Starting, State::Failed}));
}

// The app is SIGKILLed (no destructor runs): the kernel's parent-death signal must take the
// server with it. The pidfd becomes readable when the server's process exits.
TEST_F(ServerProcessTest, NoOrphanWhenTheAppIsKilled) {
    QProcess helper;
    helper.setProgram(QStringLiteral(LLAMAFIT_ORPHAN_HELPER_PATH));
    helper.setArguments({m_server, QString::fromStdString(m_model)});
    QSignalSpy output(&helper, &QProcess::readyReadStandardOutput);
    QSignalSpy finished(&helper, &QProcess::finished);
    helper.start();
    const QByteArray printed = test::readFirstLine(helper, output, 60000);
    ASSERT_TRUE(printed.startsWith("pid "))
        << printed.toStdString() << helper.readAllStandardError().toStdString();
    const auto serverPid = static_cast<pid_t>(printed.mid(4).trimmed().toLongLong());
    ASSERT_GT(serverPid, 0);
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, serverPid, 0));
    if (finished.isEmpty()) {
        ASSERT_TRUE(finished.wait(15000));
    }
    EXPECT_EQ(helper.exitStatus(), QProcess::CrashExit);
    if (pidfd < 0) {
        // Already gone and reaped before we could open it: no orphan either.
        EXPECT_EQ(errno, ESRCH);
        return;
    }
    pollfd watch{pidfd, POLLIN, 0};
    const int ready = ::poll(&watch, 1, 15000);
    if (ready != 1) {
        ::kill(serverPid, SIGKILL); // do not leave it behind for the next test
    }
    ::close(pidfd);
    EXPECT_EQ(ready, 1) << "llama-server " << serverPid << " outlived the SIGKILLed app";
}

} // namespace
} // namespace llamafit

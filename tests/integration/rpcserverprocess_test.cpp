// RpcServerProcess (core/system) and `llamafit-cli rpc-server` with the GPU rig's real
// ggml-rpc-server on 127.0.0.1 (free ports, -d CPU, never another address): it listens and lists
// the device it serves with its free memory; 20 start/stop cycles (stop(), the destructor, the
// server killed under it) leave no process behind; a held port and an unknown device fail by
// name; the CLI stops it on Ctrl-C and, SIGKILLed itself, takes it along (issue 12 item 3).
// Waits on signals (QSignalSpy::wait) or a pidfd, never on sleeps.

#include "core/system/rpcserverprocess.h"
#include "core/system/serverprocess.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/rpcserverrun.h"

#include <QDeadlineTimer>
#include <QHostAddress>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>

#include <gtest/gtest.h>

#include <csignal>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace llamafit {
namespace {

using RpcState = RpcServerProcess::State;

// The pids of this test process's live children (from /proc/PID/stat's ppid field).
std::vector<pid_t> liveChildren() {
    std::vector<pid_t> children;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) {
        return children;
    }
    while (const dirent* entry = ::readdir(proc)) {
        const std::string name = entry->d_name;
        if (name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        std::ifstream stat("/proc/" + name + "/stat");
        std::string line;
        std::getline(stat, line);
        const std::size_t close = line.rfind(')');
        if (close == std::string::npos || close + 4 >= line.size()) {
            continue;
        }
        char state = line[close + 2];
        const pid_t parent = static_cast<pid_t>(std::atol(line.c_str() + close + 4));
        if (parent == ::getpid() && state != 'Z') {
            children.push_back(static_cast<pid_t>(std::atol(name.c_str())));
        }
    }
    ::closedir(proc);
    return children;
}

// Waits until `pid` has exited (a pidfd becomes readable); true when it has.
bool waitForExit(pid_t pid, int timeoutMs) {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) {
        return errno == ESRCH; // already gone and reaped
    }
    pollfd watch{pidfd, POLLIN, 0};
    const bool exited = ::poll(&watch, 1, timeoutMs) == 1;
    ::close(pidfd);
    return exited;
}

class RpcServerProcessTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const auto program = test::findRpcServer();
        ASSERT_TRUE(program.ok()) << program.error().message;
        m_program = QString::fromStdString(*program);
        m_environment.insert(QStringLiteral("GGML_VK_VISIBLE_DEVICES"), QString()); // -d CPU only
    }

    RpcServerOptions freePortOptions() const {
        RpcServerOptions options;
        options.port = ServerProcess::pickFreePort();
        options.devices = {"CPU"};
        return options;
    }

    // Waits for `target` (or Failed) through the spy; true when `target` was reached.
    static bool waitForState(const RpcServerProcess& process, QSignalSpy& spy, RpcState target,
                             int timeoutMs) {
        QDeadlineTimer deadline(timeoutMs);
        while (process.state() != target) {
            if (process.state() == RpcState::Failed || deadline.hasExpired() ||
                !spy.wait(static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1)))) {
                return process.state() == target;
            }
        }
        return true;
    }

    QString m_program;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
};

TEST_F(RpcServerProcessTest, ListensAndListsTheDeviceItServes) {
    RpcServerProcess process;
    process.setEnvironment(m_environment);
    QSignalSpy spy(&process, &RpcServerProcess::stateChanged);
    const RpcServerOptions options = freePortOptions();
    ASSERT_TRUE(process.start(m_program, options));
    ASSERT_TRUE(waitForState(process, spy, RpcState::Listening, 30000)) << process.failure().message;
    EXPECT_EQ(process.endpoint(), "127.0.0.1:" + std::to_string(options.port));
    const std::vector<ListedDevice> devices = process.devices();
    ASSERT_EQ(devices.size(), 1u) << process.log();
    EXPECT_EQ(devices[0].name, "CPU");
    EXPECT_GT(devices[0].freeBytes, 0u);
    EXPECT_LE(devices[0].freeBytes, devices[0].totalBytes);
    const auto pid = static_cast<pid_t>(process.processId());
    process.stop();
    ASSERT_TRUE(waitForState(process, spy, RpcState::Stopped, 15000));
    EXPECT_EQ(::kill(pid, 0), -1) << "ggml-rpc-server still exists after stop()";
}

TEST_F(RpcServerProcessTest, TwentyStartStopCyclesLeaveNoProcess) {
    const std::vector<pid_t> before = liveChildren();
    std::vector<pid_t> started;
    for (int cycle = 0; cycle < 20; ++cycle) {
        auto process = std::make_unique<RpcServerProcess>();
        process->setEnvironment(m_environment);
        QSignalSpy spy(process.get(), &RpcServerProcess::stateChanged);
        ASSERT_TRUE(process->start(m_program, freePortOptions()));
        ASSERT_TRUE(waitForState(*process, spy, RpcState::Listening, 30000))
            << "cycle " << cycle << ": " << process->failure().message;
        const auto pid = static_cast<pid_t>(process->processId());
        started.push_back(pid);
        switch (cycle % 3) {
        case 0: // stop() and the exit
            process->stop();
            ASSERT_TRUE(waitForState(*process, spy, RpcState::Stopped, 15000)) << "cycle " << cycle;
            break;
        case 1: // killed under it: named as its exit
            ::kill(pid, SIGKILL);
            ASSERT_FALSE(waitForState(*process, spy, RpcState::Stopped, 15000));
            ASSERT_EQ(process->state(), RpcState::Failed) << "cycle " << cycle;
            EXPECT_EQ(process->failure().code, "rpc-server.exited");
            EXPECT_NE(process->failure().message.find("crashed"), std::string::npos)
                << process->failure().message;
            break;
        default: // the owner goes away while it listens: the destructor stops and reaps it
            break;
        }
        process.reset();
        EXPECT_TRUE(waitForExit(pid, 5000))
            << "cycle " << cycle << ": ggml-rpc-server " << pid << " outlived it";
    }
    EXPECT_EQ(liveChildren(), before);
    for (const pid_t pid : started) {
        EXPECT_EQ(::kill(pid, 0), -1) << "ggml-rpc-server " << pid << " is still there";
    }
}

TEST_F(RpcServerProcessTest, AHeldPortIsNamedBeforeTheStart) {
    QTcpServer holder;
    ASSERT_TRUE(holder.listen(QHostAddress::LocalHost, 0));
    RpcServerOptions options = freePortOptions();
    options.port = holder.serverPort();
    RpcServerProcess process;
    process.setEnvironment(m_environment);
    QSignalSpy failed(&process, &RpcServerProcess::failed);
    ASSERT_TRUE(process.start(m_program, options));
    EXPECT_EQ(process.state(), RpcState::Failed);
    EXPECT_EQ(process.failure().code, "rpc-server.port-in-use");
    EXPECT_NE(process.failure().message.find(std::to_string(options.port)), std::string::npos);
    EXPECT_EQ(process.processId(), 0) << "nothing is started for a held port";
    EXPECT_EQ(failed.size(), 1);
}

TEST_F(RpcServerProcessTest, AnUnknownDeviceIsNamed) {
    RpcServerOptions options = freePortOptions();
    options.devices = {"NoSuchDevice0"};
    RpcServerProcess process;
    process.setEnvironment(m_environment);
    QSignalSpy spy(&process, &RpcServerProcess::stateChanged);
    ASSERT_TRUE(process.start(m_program, options));
    EXPECT_FALSE(waitForState(process, spy, RpcState::Listening, 30000));
    EXPECT_EQ(process.failure().code, "rpc-server.unknown-device") << process.failure().message;
    EXPECT_NE(process.failure().message.find("NoSuchDevice0"), std::string::npos);
}

TEST_F(RpcServerProcessTest, AMissingProgramIsNamed) {
    RpcServerProcess process;
    QSignalSpy spy(&process, &RpcServerProcess::stateChanged);
    ASSERT_TRUE(process.start(QStringLiteral("/nonexistent/ggml-rpc-server"), freePortOptions()));
    EXPECT_FALSE(waitForState(process, spy, RpcState::Listening, 15000));
    EXPECT_EQ(process.failure().code, "rpc-server.missing");
}

// `llamafit-cli rpc-server` with the rig's server: its line names the endpoint; Ctrl-C stops the
// server and exits 0; SIGKILLed, the CLI takes its server along (PR_SET_PDEATHSIG).
class RpcServerCliTest : public RpcServerProcessTest {
  protected:
    // Starts the CLI and reads its output up to the "On the main host" line; the server's pid.
    pid_t startCli(QProcess& cli, std::uint16_t port) {
        QProcessEnvironment environment = m_environment;
        environment.insert(QStringLiteral("LLAMAFIT_GGML_RPC_SERVER"), m_program);
        cli.setProcessEnvironment(environment);
        cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                  {QStringLiteral("rpc-server"), QStringLiteral("--port"), QString::number(port),
                   QStringLiteral("--device"), QStringLiteral("CPU")});
        QSignalSpy output(&cli, &QProcess::readyReadStandardOutput);
        QDeadlineTimer deadline(30000);
        while (!m_printed.contains("--rpc ") && cli.state() != QProcess::NotRunning &&
               !deadline.hasExpired()) {
            output.wait(1000);
            m_printed += cli.readAllStandardOutput();
        }
        const qsizetype at = m_printed.indexOf("(pid ");
        return at < 0 ? 0 : static_cast<pid_t>(m_printed.mid(at + 5).split(')').front().toLongLong());
    }

    QByteArray m_printed;
};

TEST_F(RpcServerCliTest, CtrlCStopsTheServerAndExitsZero) {
    const std::uint16_t port = ServerProcess::pickFreePort();
    QProcess cli;
    const pid_t server = startCli(cli, port);
    ASSERT_GT(server, 0) << m_printed.toStdString() << cli.readAllStandardError().toStdString();
    EXPECT_TRUE(m_printed.contains(QByteArray("listening on 127.0.0.1:") + QByteArray::number(port)));
    EXPECT_TRUE(m_printed.contains("  CPU: ")) << m_printed.toStdString();
    EXPECT_TRUE(m_printed.contains(QByteArray("--rpc 127.0.0.1:") + QByteArray::number(port)));
    ::kill(static_cast<pid_t>(cli.processId()), SIGINT);
    ASSERT_TRUE(cli.waitForFinished(15000));
    EXPECT_EQ(cli.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    EXPECT_TRUE(waitForExit(server, 5000)) << "ggml-rpc-server " << server << " outlived the CLI";
}

TEST_F(RpcServerCliTest, SigkilledCliTakesItsServerAlong) {
    QProcess cli;
    const pid_t server = startCli(cli, ServerProcess::pickFreePort());
    ASSERT_GT(server, 0) << m_printed.toStdString() << cli.readAllStandardError().toStdString();
    ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
    ASSERT_TRUE(cli.waitForFinished(15000));
    const bool exited = waitForExit(server, 15000);
    if (!exited) {
        ::kill(server, SIGKILL); // do not leave it behind for the next test
    }
    EXPECT_TRUE(exited) << "ggml-rpc-server " << server << " outlived the SIGKILLed CLI";
}

} // namespace
} // namespace llamafit

// No orphans: 100 start -> (Loading or Ready) -> stop/kill cycles of ServerProcess on the tiny
// model. Even cycles stop() (SIGTERM), odd cycles SIGKILL the server from outside (Failed).
// After each cycle the server's pid must be gone (kill(pid, 0) fails with ESRCH) and no
// process may hold this test's model path on its command line. Waits via QSignalSpy only.

#include "core/system/serverprocess.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace llamafit {
namespace {

using State = ServerProcess::State;

// Pids of processes whose command line holds `needle` (reads /proc/*/cmdline).
std::vector<qint64> processesMentioning(const QByteArray& needle) {
    std::vector<qint64> pids;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid || pid == ::getpid()) {
            continue;
        }
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(entry));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(needle)) {
            pids.push_back(pid);
        }
    }
    return pids;
}

bool waitUntil(ServerProcess& process, QSignalSpy& spy, std::initializer_list<State> targets, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    auto reached = [&] {
        return std::find(targets.begin(), targets.end(), process.state()) != targets.end();
    };
    while (!reached()) {
        if (deadline.hasExpired() ||
            !spy.wait(static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1)))) {
            return reached();
        }
    }
    return true;
}

TEST(ServerProcessCycles, HundredStartKillCyclesLeaveNoServer) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto server = test::findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    std::string error;
    const std::string& directory = test::scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    const std::string model = directory + "/cycles-tiny.gguf";
    ASSERT_TRUE(test::writeTinyModel(model).ok());
    const QStringList args{QStringLiteral("-m"),  QString::fromStdString(model), QStringLiteral("-c"),
                           QStringLiteral("256"), QStringLiteral("--no-warmup"), QStringLiteral("-t"),
                           QStringLiteral("1")};

    ServerProcess process;
    ServerProcess::Timing timing;
    timing.healthInterval = std::chrono::milliseconds(20);
    timing.stopGrace = std::chrono::milliseconds(3000);
    process.setTiming(timing);
    constexpr int kCycles = 100;
    for (int cycle = 0; cycle < kCycles; ++cycle) {
        QSignalSpy spy(&process, &ServerProcess::stateChanged);
        ASSERT_TRUE(process.start(QString::fromStdString(*server), args)) << "cycle " << cycle;
        ASSERT_TRUE(waitUntil(process, spy, {State::Loading, State::Ready}, 30000))
            << "cycle " << cycle << ": " << ServerProcess::stateName(process.state()) << "\n"
            << process.log();
        const qint64 pid = process.processId();
        ASSERT_GT(pid, 0);
        if (cycle % 2 == 0) {
            process.stop();
            ASSERT_TRUE(waitUntil(process, spy, {State::Stopped}, 15000)) << "cycle " << cycle;
        } else {
            ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
            ASSERT_TRUE(waitUntil(process, spy, {State::Failed}, 15000)) << "cycle " << cycle;
        }
        errno = 0;
        EXPECT_EQ(::kill(static_cast<pid_t>(pid), 0), -1)
            << "cycle " << cycle << ": pid " << pid << " remains";
        EXPECT_EQ(errno, ESRCH) << "cycle " << cycle;
        const std::vector<qint64> left = processesMentioning(QByteArray::fromStdString(model));
        ASSERT_TRUE(left.empty()) << "cycle " << cycle << ": pid " << left.front() << " still runs the model";
    }
}

} // namespace
} // namespace llamafit

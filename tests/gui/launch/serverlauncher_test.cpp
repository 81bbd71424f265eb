// ServerLauncher with the real llama-server 0.7.0: probe -> argv for the build -> whole-argv
// check -> start; a flag the build does not list and an argv the build rejects are refused
// with nothing started; a binary that cannot be probed is started with the 0.7.0 spelling so
// ServerProcess names the failure; the load limit follows the model file's size.

#include "core/system/serverlauncher.h"

#include "tests/gui/launch/launchfixture.h"

#include <QFileInfo>

#include <algorithm>

namespace llamafit {
namespace {

using test::waitUntil;

class ServerLauncherTest : public test::LaunchFixture {
  protected:
    LaunchRequest request(std::vector<std::string> extra) const {
        LaunchRequest request;
        request.program = m_server;
        request.modelPath = m_modelPath;
        request.settings = m_session->settings();
        request.argvOptions = launchArgvOptions("127.0.0.1", std::nullopt, std::move(extra));
        return request;
    }
};

TEST_F(ServerLauncherTest, ProbesChecksAndStartsTheArgvSpelledForTheBuild) {
    ServerLauncher launcher(&m_process);
    QSignalSpy probed(&launcher, &ServerLauncher::probed);
    QSignalSpy started(&launcher, &ServerLauncher::started);
    QSignalSpy refused(&launcher, &ServerLauncher::refused);
    QSignalSpy states(&m_process, &ServerProcess::stateChanged);
    launcher.launch(request({"--no-warmup", "-fit", "off", "-t", "1"}));
    EXPECT_TRUE(launcher.busy());
    ASSERT_TRUE(waitUntil(
        started, [&] { return !started.isEmpty() || !refused.isEmpty(); }, 60000));
    ASSERT_TRUE(refused.isEmpty()) << refused.first().first().value<Error>().message;
    EXPECT_FALSE(launcher.busy());

    ASSERT_FALSE(probed.isEmpty());
    const auto outcome = probed.first().first().value<BinaryProbeOutcome>();
    ASSERT_TRUE(outcome.capabilities.has_value()) << outcome.error.message;
    EXPECT_EQ(outcome.capabilities->version, "0.7.0");
    EXPECT_EQ(describeVersion(outcome), QStringLiteral("llama-server 0.7.0 (build 11669)"));

    const QStringList args = started.first().first().toStringList();
    const auto expected = serverArgvForBuild(
        m_session->settings(), m_modelPath, *outcome.capabilities,
        launchArgvOptions("127.0.0.1", std::nullopt, {"--no-warmup", "-fit", "off", "-t", "1"}));
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    QStringList expectedArgs;
    for (const std::string& word : expected->args) {
        expectedArgs << QString::fromStdString(word);
    }
    EXPECT_EQ(args, expectedArgs);
    EXPECT_TRUE(args.contains(QStringLiteral("--metrics")));
    EXPECT_EQ(m_process.arguments().mid(0, args.size()), args);
    EXPECT_EQ(m_process.timing().loadLimit, ServerProcess::loadLimitForModel(static_cast<std::uint64_t>(
                                                QFileInfo(QString::fromStdString(m_modelPath)).size())));
    EXPECT_TRUE(waitForState(states, State::Ready, 60000)) << m_process.log();
}

// The launch panel spells the argv once per click and hands it over: the launcher starts it as
// given when its probe finds the build it was spelled for, and spells again for any other build.
TEST_F(ServerLauncherTest, AnArgvSpelledForTheProbedBuildIsNotSpelledAgain) {
    ServerLauncher launcher(&m_process);
    QSignalSpy probed(&launcher, &ServerLauncher::probed);
    launcher.probe(m_server);
    ASSERT_TRUE(probed.wait(30000));
    const std::optional<BuildCapabilities> capabilities = launcher.capabilities(m_server);
    ASSERT_TRUE(capabilities.has_value());

    const LaunchRequest plain = request({"--no-warmup", "-fit", "off", "-t", "1"});
    Result<BuildArgv> spelled = launchArgv(plain, capabilities);
    ASSERT_TRUE(spelled.ok()) << spelled.error().message;
    // A marker only the handed-over argv has: "-t 1" becomes "-t 2".
    BuildArgv marked = *spelled;
    const auto threads = std::find(marked.args.begin(), marked.args.end(), "-t");
    ASSERT_NE(threads, marked.args.end());
    *(threads + 1) = "2";
    QStringList markedArgs;
    for (const std::string& word : marked.args) {
        markedArgs << QString::fromStdString(word);
    }

    QSignalSpy started(&launcher, &ServerLauncher::started);
    QSignalSpy refused(&launcher, &ServerLauncher::refused);
    BuildCapabilities otherBuild = *capabilities;
    otherBuild.version = "0.7.1";
    launcher.launch(plain, marked, otherBuild); // spelled for another build: spelled again
    ASSERT_TRUE(waitUntil(
        started, [&] { return !started.isEmpty() || !refused.isEmpty(); }, 60000));
    ASSERT_TRUE(refused.isEmpty()) << refused.first().first().value<Error>().message;
    EXPECT_NE(started.first().first().toStringList(), markedArgs);
    QSignalSpy states(&m_process, &ServerProcess::stateChanged);
    m_process.stop();
    ASSERT_TRUE(m_process.state() == State::Stopped || waitForState(states, State::Stopped, 30000));

    started.clear();
    launcher.launch(plain, marked, capabilities); // the build it was spelled for: used as given
    ASSERT_TRUE(waitUntil(
        started, [&] { return !started.isEmpty() || !refused.isEmpty(); }, 60000));
    ASSERT_TRUE(refused.isEmpty()) << refused.first().first().value<Error>().message;
    EXPECT_EQ(started.first().first().toStringList(), markedArgs);
}

TEST_F(ServerLauncherTest, RefusesAFlagTheBuildDoesNotListAndStartsNothing) {
    ServerLauncher launcher(&m_process);
    QSignalSpy refused(&launcher, &ServerLauncher::refused);
    QSignalSpy started(&launcher, &ServerLauncher::started);
    launcher.launch(request({"--no-such-flag"}));
    ASSERT_TRUE(refused.wait(30000));
    EXPECT_EQ(refused.first().first().value<Error>().code, "build.unknown-flag");
    EXPECT_TRUE(started.isEmpty());
    EXPECT_EQ(m_process.state(), State::Stopped);
    EXPECT_FALSE(launcher.busy());
}

TEST_F(ServerLauncherTest, RefusesAnArgvTheBuildRejectsAndStartsNothing) {
    ServerLauncher launcher(&m_process);
    QSignalSpy refused(&launcher, &ServerLauncher::refused);
    QSignalSpy started(&launcher, &ServerLauncher::started);
    launcher.launch(request({"-t", "many"})); // -t is listed; "many" is not a number
    ASSERT_TRUE(refused.wait(30000));
    const Error error = refused.first().first().value<Error>();
    EXPECT_EQ(error.code, "probe.argv-rejected") << error.message;
    EXPECT_TRUE(started.isEmpty());
    EXPECT_EQ(m_process.state(), State::Stopped);
}

TEST_F(ServerLauncherTest, AnUnprobeableBinaryStartsWithThe070SpellingAndFailsByName) {
    ServerLauncher launcher(&m_process);
    QSignalSpy probed(&launcher, &ServerLauncher::probed);
    QSignalSpy started(&launcher, &ServerLauncher::started);
    QSignalSpy states(&m_process, &ServerProcess::stateChanged);
    LaunchRequest missing = request({"--no-warmup"});
    missing.program = m_directory.filePath(QStringLiteral("no-such-llama-server"));
    launcher.launch(missing);
    ASSERT_TRUE(started.wait(30000));
    ASSERT_FALSE(probed.isEmpty());
    EXPECT_FALSE(probed.first().first().value<BinaryProbeOutcome>().capabilities.has_value());
    QStringList expected;
    for (const std::string& word : unprobedServerArgv(m_modelPath, missing.settings, missing.argvOptions)) {
        expected << QString::fromStdString(word);
    }
    EXPECT_EQ(started.first().first().toStringList(), expected);
    ASSERT_TRUE(waitForState(states, State::Failed, 30000));
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::BinaryMissing);
}

TEST(LaunchArgvOptions, ExtraWordsThatBindOrLogAreNotAddedTwice) {
    const LaunchArgvOptions plain = launchArgvOptions("0.0.0.0", 8081, {"-t", "4"});
    EXPECT_EQ(plain.host, "0.0.0.0");
    EXPECT_EQ(plain.port, std::optional<std::uint16_t>(8081));
    EXPECT_TRUE(plain.metrics);
    EXPECT_EQ(plain.logVerbosity, std::optional<int>(4));

    const LaunchArgvOptions given =
        launchArgvOptions("127.0.0.1", 8081, {"--host=::1", "--port", "9000", "--metrics", "-lv", "3"});
    EXPECT_TRUE(given.host.empty());
    EXPECT_FALSE(given.port.has_value());
    EXPECT_FALSE(given.metrics);
    EXPECT_FALSE(given.logVerbosity.has_value());
    const std::vector<std::string> argv = unprobedServerArgv("m.gguf", ServerSettings{}, given);
    EXPECT_EQ(argv, (std::vector<std::string>{"-m", "m.gguf", "--host=::1", "--port", "9000", "--metrics",
                                              "-lv", "3"}));
}

TEST(AllocationBudget, IsTheLogsLowerBoundPlusTheFailedSizeLessOne) {
    LaunchFailure failure;
    failure.reason = LaunchFailureReason::AllocationFailed;
    EXPECT_FALSE(allocationBudgetBytes(failure).has_value()); // no allocation read from the log
    AllocationFailure allocation;
    allocation.bufferType = "CUDA0";
    allocation.failedBytes = 1000;
    failure.allocation = allocation;
    // Nothing allocated on CUDA0 before: the device proved it cannot hold 1000 bytes.
    EXPECT_EQ(allocationBudgetBytes(failure), std::optional<std::uint64_t>(999));
    failure.reason = LaunchFailureReason::PortInUse;
    EXPECT_FALSE(allocationBudgetBytes(failure).has_value());
}

} // namespace
} // namespace llamafit

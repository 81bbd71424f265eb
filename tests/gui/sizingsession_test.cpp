// SizingSession: starts on the default card, recomputes on each change with exactly the core's
// numbers, reports refused settings as errors, and emits only on real changes.
#include "ui/sizingsession.h"

#include "core/machine/machinebudget.h"
#include "core/machine/machineprofile.h"
#include "core/model/modelspec.h"
#include "core/sizing/estimator.h"

#include <QSignalSpy>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

Machine seedMachine() {
    return *findBuiltinMachine(defaultMachineId());
}

TEST(SizingSession, StartsOnTheDefaultCardWithTheCoresEstimate) {
    SizingSession session(seedMachine());
    EXPECT_EQ(session.model().cardId, std::string(defaultModelCardId()));
    ASSERT_TRUE(session.estimate().ok()) << session.estimate().error().message;
    const Result<MemoryEstimate> expected =
        estimateMemory(session.model().info, session.settings(), sizingGpus(seedMachine()));
    ASSERT_TRUE(expected.ok());
    EXPECT_EQ(*session.estimate(), *expected);
    ASSERT_TRUE(session.poolUsage().has_value());
    EXPECT_EQ(session.poolUsage()->pools.size(), seedMachine().pools.size());
}

TEST(SizingSession, ASettingsChangeRecomputesAndEmitsOnce) {
    SizingSession session(seedMachine());
    QSignalSpy settingsSpy(&session, &SizingSession::settingsChanged);
    QSignalSpy estimateSpy(&session, &SizingSession::estimateChanged);
    ServerSettings settings;
    settings.contextTokens = 65536;
    settings.cacheTypeV = GgmlType::Q8_0;
    session.setSettings(settings);
    session.setSettings(settings); // same value: nothing
    EXPECT_EQ(settingsSpy.count(), 1);
    EXPECT_EQ(estimateSpy.count(), 1);
    const Result<MemoryEstimate> expected = estimateMemory(session.model().info, settings, session.gpus());
    ASSERT_TRUE(expected.ok());
    EXPECT_EQ(*session.estimate(), *expected);
}

TEST(SizingSession, RefusedSettingsAreAnErrorWithoutPoolUsage) {
    SizingSession session(seedMachine());
    ServerSettings settings;
    settings.cacheTypeV = GgmlType::Q8_0;
    settings.flashAttention = FlashAttention::Off;
    session.setSettings(settings);
    ASSERT_FALSE(session.estimate().ok());
    EXPECT_EQ(session.estimate().error().code, "settings.quantized-v-needs-fa");
    EXPECT_FALSE(session.poolUsage().has_value());
}

TEST(SizingSession, AModelTrainedOnLessThanTheStartContextStartsAtItsOwn) {
    EXPECT_EQ(SizingSession::startSettings(loadModel("llama-3-8b-q4_k_m")->info).contextTokens, 4096U);
    ModelInfo small;
    small.trainingContext = 2048;
    EXPECT_EQ(SizingSession::startSettings(small).contextTokens, 2048U);
    small.trainingContext = 0; // unknown: the start context
    EXPECT_EQ(SizingSession::startSettings(small).contextTokens, 4096U);
}

TEST(SizingSession, BudgetIsTheMachinesPoolsLessTheMargin) {
    SizingSession session(seedMachine());
    session.setMarginBytes(512ULL << 20);
    EXPECT_EQ(session.budget(), machineBudget(seedMachine(), 512ULL << 20));
}

TEST(SizingSession, ANewModelResetsSettingsAndExtraArgs) {
    SizingSession session(seedMachine());
    ServerSettings settings;
    settings.contextTokens = 8192;
    session.setSettings(settings);
    session.setExtraArgs({"-t", "8"});
    QSignalSpy modelSpy(&session, &SizingSession::modelChanged);
    Result<LoadedModel> other = loadModel("llama-3-8b-q4_k_m");
    ASSERT_TRUE(other.ok());
    session.setModel(std::move(*other));
    EXPECT_EQ(modelSpy.count(), 1);
    EXPECT_EQ(session.settings(), ServerSettings{});
    EXPECT_TRUE(session.extraArgs().empty());
    EXPECT_EQ(session.model().cardId, "llama-3-8b-q4_k_m");
}

// Two loopback ggml-rpc-servers, as the cluster view's screenshot plans them.
std::vector<RpcHost> twoHosts() {
    return {RpcHost{"127.0.0.1:50052", 2048ULL << 20}, RpcHost{"127.0.0.1:50053", 3072ULL << 20}};
}

TEST(SizingSessionRpcHosts, PutsTheHostsInFrontOfTheGpusAndNamesThemInRpcServers) {
    SizingSession session(seedMachine());
    QSignalSpy machineSpy(&session, &SizingSession::machineChanged);
    QSignalSpy settingsSpy(&session, &SizingSession::settingsChanged);
    QSignalSpy estimateSpy(&session, &SizingSession::estimateChanged);
    session.setRpcHosts(twoHosts());
    session.setRpcHosts(twoHosts()); // same value: nothing
    EXPECT_EQ(machineSpy.count(), 1);
    EXPECT_EQ(settingsSpy.count(), 1);
    EXPECT_EQ(estimateSpy.count(), 1);
    EXPECT_EQ(session.rpcHosts(), twoHosts());
    EXPECT_EQ(session.machine(), withRpcHosts(seedMachine(), twoHosts()));
    ASSERT_EQ(session.gpus().size(), 3U);
    EXPECT_EQ(session.gpus()[0].name, "RPC0[127.0.0.1:50052]");
    EXPECT_EQ(session.gpus()[1].name, "RPC0[127.0.0.1:50053]");
    EXPECT_EQ(session.settings().rpcServers,
              (std::vector<std::string>{"127.0.0.1:50052", "127.0.0.1:50053"}));
    ASSERT_TRUE(session.estimate().ok()) << session.estimate().error().message;
    ASSERT_TRUE(session.poolUsage().has_value());
    EXPECT_EQ(session.poolUsage()->pools.size(), seedMachine().pools.size() + 2);

    session.setRpcHosts({});
    EXPECT_EQ(session.machine(), seedMachine());
    EXPECT_TRUE(session.settings().rpcServers.empty());
}

TEST(SizingSessionRpcHosts, AnotherMachineKeepsTheHosts) {
    SizingSession session(seedMachine());
    session.setRpcHosts(twoHosts());
    const Machine rtx = *findBuiltinMachine("rtx-4060-8gb");
    session.setMachine(rtx);
    EXPECT_EQ(rpcHostsOf(session.machine()), twoHosts());
    EXPECT_EQ(session.machine(), withRpcHosts(rtx, twoHosts()));
    // The machine panel hands back what it read from the session (a BIOS split): no hosts twice.
    session.setMachine(session.machine());
    EXPECT_EQ(rpcHostsOf(session.machine()), twoHosts());
}

TEST(SizingSessionRpcHosts, SettingsAndANewModelKeepTheHostsEndpoints) {
    SizingSession session(seedMachine());
    session.setRpcHosts(twoHosts());
    const std::vector<std::string> endpoints{"127.0.0.1:50052", "127.0.0.1:50053"};
    ServerSettings restored; // a profile saved without hosts
    restored.contextTokens = 8192;
    session.setSettings(restored);
    EXPECT_EQ(session.settings().contextTokens, 8192U);
    EXPECT_EQ(session.settings().rpcServers, endpoints);
    ASSERT_TRUE(session.estimate().ok()) << session.estimate().error().message;
    session.setModel(std::move(*loadModel("llama-3-8b-q4_k_m")));
    EXPECT_EQ(session.settings().rpcServers, endpoints);
    EXPECT_TRUE(session.estimate().ok()) << session.estimate().error().message;
}

TEST(SizingSessionRpcHosts, ADeviceMoreOrLessClearsTheTensorSplit) {
    SizingSession session(seedMachine());
    session.setRpcHosts(twoHosts());
    ServerSettings settings = session.settings();
    settings.tensorSplit = {1, 2, 3};
    session.setSettings(settings);
    std::vector<RpcHost> moreFree = twoHosts();
    moreFree[1].freeBytes = 4096ULL << 20; // same devices: the split stays
    session.setRpcHosts(moreFree);
    EXPECT_EQ(session.settings().tensorSplit, (std::vector<double>{1, 2, 3}));
    QSignalSpy settingsSpy(&session, &SizingSession::settingsChanged);
    session.setRpcHosts({moreFree[0]});
    EXPECT_EQ(settingsSpy.count(), 1);
    EXPECT_TRUE(session.settings().tensorSplit.empty());
    EXPECT_TRUE(session.estimate().ok()) << session.estimate().error().message;
}

} // namespace
} // namespace llamafit

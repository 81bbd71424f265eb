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

} // namespace
} // namespace llamafit

// The live speed comparison (issue 15 item 3): which measured rate is compared, at which depth,
// and the effective bandwidth, fraction and ratio worked out by hand from the speed model's
// rule (bytes per step = weights + each decoding slot's KV and RS); then the whole path on the
// tiny model's real estimate against the bandwidth module's own bytes per token.
#include "core/machine/bandwidth.h"
#include "core/server/livespeed.h"
#include "tests/unit/server/shapeestimate.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

SlotThroughput slotRate(std::int32_t id, double tokensPerSecond, bool restarted = false,
                        bool finished = false) {
    SlotThroughput slot;
    slot.id = id;
    slot.tokensPerSecond = tokensPerSecond;
    slot.restarted = restarted;
    slot.finished = finished;
    return slot;
}

SlotState slot(std::int32_t id, bool processing, std::uint32_t prompt, std::uint64_t decoded) {
    SlotState state;
    state.id = id;
    state.nCtx = 4096;
    state.isProcessing = processing;
    state.promptTokens = prompt;
    state.decodedTokens = decoded;
    return state;
}

RunTotals totalsAt(std::optional<double> generationTokensPerSecond) {
    RunTotals totals;
    totals.generatedTokens = generationTokensPerSecond ? 800 : 0;
    totals.generationTokensPerSecond = generationTokensPerSecond;
    return totals;
}

TEST(LiveSpeed, GeneratingSlotsAreAveragedLeavingOutRestartedAndFinishedOnes) {
    const std::optional<MeasuredDecodeRate> rate = measuredDecodeRate(
        {slotRate(0, 40), slotRate(1, 20), slotRate(2, 5, true), slotRate(3, 0, false, true), slotRate(4, 0)},
        totalsAt(90.0));
    ASSERT_TRUE(rate.has_value());
    EXPECT_EQ(rate->source, MeasuredRateSource::Slots);
    EXPECT_DOUBLE_EQ(rate->tokensPerSecond, 30.0);
    EXPECT_EQ(rate->decodingSlots, 2u);
}

TEST(LiveSpeed, IdleSlotsFallBackToTheRunAverageAndNothingGeneratedIsNoRate) {
    const std::optional<MeasuredDecodeRate> idle =
        measuredDecodeRate({slotRate(0, 0, false, true), slotRate(1, 0)}, totalsAt(412.5));
    ASSERT_TRUE(idle.has_value());
    EXPECT_EQ(idle->source, MeasuredRateSource::RunAverage);
    EXPECT_DOUBLE_EQ(idle->tokensPerSecond, 412.5);
    EXPECT_EQ(idle->decodingSlots, 1u);
    // A burst between two polls: no slot sample at all, the counters have it.
    EXPECT_TRUE(measuredDecodeRate({}, totalsAt(100.0)).has_value());
    EXPECT_FALSE(measuredDecodeRate({slotRate(0, 0)}, totalsAt(std::nullopt)).has_value());
}

TEST(LiveSpeed, DepthIsTheFullestProcessingSlotElseTheLastPromptElseHalfTheSlot) {
    EXPECT_EQ(liveDepthTokens({slot(0, false, 3000, 0), slot(1, true, 100, 250)}, 4096), 350u);
    EXPECT_EQ(liveDepthTokens({slot(0, false, 3000, 0), slot(1, false, 100, 0)}, 4096), 3000u);
    EXPECT_EQ(liveDepthTokens({slot(0, false, 0, 0)}, 4096), 2048u);
    EXPECT_EQ(liveDepthTokens({}, 1024), 512u);
    EXPECT_EQ(liveDepthTokens({slot(0, true, 4000, 500)}, 4096), 4096u); // capped at the slot
}

SpeedInputs handInputs() {
    SpeedInputs inputs;
    inputs.bandwidthBytesPerSecond = 256'000'000'000;
    inputs.weightBytesPerToken = 1'000'000'000;
    inputs.weightBytesTotal = 1'000'000'000;
    inputs.kvBytesPerToken = 100'000'000;
    inputs.rsBytesPerToken = 0;
    return inputs;
}

SpeedEfficiency halfEfficiency() {
    SpeedEfficiency efficiency;
    efficiency.decode = 0.5;
    efficiency.description = "test";
    return efficiency;
}

TEST(LiveSpeed, OneSlotEffectiveBandwidthFractionAndRatio) {
    const LiveSpeed speed =
        compareLiveSpeed({100.0, 1, MeasuredRateSource::Slots}, handInputs(), halfEfficiency());
    EXPECT_EQ(speed.bytesPerToken, 1'100'000'000u);
    EXPECT_DOUBLE_EQ(speed.effectiveBytesPerSecond, 110e9);
    ASSERT_TRUE(speed.machineBytesPerSecond && speed.fractionOfMachine && speed.expectedTokensPerSecond &&
                speed.measuredOverExpected);
    EXPECT_EQ(*speed.machineBytesPerSecond, 256'000'000'000u);
    EXPECT_NEAR(*speed.fractionOfMachine, 110.0 / 256.0, 1e-12);
    // 256e9 / 1.1e9 x 0.5 = 116.36 t/s expected.
    EXPECT_NEAR(*speed.expectedTokensPerSecond, 256.0 / 1.1 * 0.5, 1e-9);
    EXPECT_NEAR(*speed.measuredOverExpected, 100.0 / (256.0 / 1.1 * 0.5), 1e-12);
    EXPECT_EQ(speed.efficiency.description, "test");
}

TEST(LiveSpeed, TwoDecodingSlotsReadEachSlotsKvPerStep) {
    const LiveSpeed speed =
        compareLiveSpeed({100.0, 2, MeasuredRateSource::Slots}, handInputs(), halfEfficiency());
    EXPECT_EQ(speed.bytesPerToken, 1'200'000'000u);
    EXPECT_DOUBLE_EQ(speed.effectiveBytesPerSecond, 120e9);
    ASSERT_TRUE(speed.expectedTokensPerSecond.has_value());
    EXPECT_NEAR(*speed.expectedTokensPerSecond, 256.0 / 1.2 * 0.5, 1e-9);
}

TEST(LiveSpeed, WithoutAMachineFigureOnlyTheEffectiveBandwidthIsKnown) {
    SpeedInputs inputs = handInputs();
    inputs.bandwidthBytesPerSecond = 0;
    const LiveSpeed speed =
        compareLiveSpeed({50.0, 1, MeasuredRateSource::RunAverage}, inputs, halfEfficiency());
    EXPECT_DOUBLE_EQ(speed.effectiveBytesPerSecond, 55e9);
    EXPECT_FALSE(speed.machineBytesPerSecond.has_value());
    EXPECT_FALSE(speed.fractionOfMachine.has_value());
    EXPECT_FALSE(speed.expectedTokensPerSecond.has_value());
    EXPECT_FALSE(speed.measuredOverExpected.has_value());
}

TEST(LiveSpeed, TinyModelBytesPerTokenAreTheBandwidthModulesAtTheSlotsDepth) {
    const Result<testdata::ShapeRun> run = testdata::shapeRun("tiny", {"-c", "1024", "-np", "2"});
    ASSERT_TRUE(run.ok()) << run.error().message;
    const Result<MemoryEstimate> estimate = estimateMemory(run->model, run->args.settings, {});
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    const ModelInfo& model = run->model.model();
    const std::uint64_t bandwidth = 50'000'000'000;
    const SpeedEfficiency efficiency = defaultSpeedEfficiency(Backend::Cpu, model.isMoe());

    // Idle slots that never ran: half of the 512-token slot.
    std::optional<LiveSpeed> speed =
        liveSpeed(model, *estimate, bandwidth, efficiency, {}, {}, totalsAt(1000.0));
    ASSERT_TRUE(speed.has_value());
    EXPECT_EQ(speed->depthTokens, 256u);
    const DecodeSpeedEstimate half = estimateDecodeSpeed(model, *estimate, bandwidth, 256);
    EXPECT_EQ(speed->bytesPerToken, half.totalBytesPerToken);
    EXPECT_GT(half.kvBytesPerToken, 0u);
    EXPECT_DOUBLE_EQ(speed->effectiveBytesPerSecond, 1000.0 * static_cast<double>(half.totalBytesPerToken));
    ASSERT_TRUE(speed->expectedTokensPerSecond.has_value());
    EXPECT_DOUBLE_EQ(*speed->expectedTokensPerSecond, half.tokensPerSecond * efficiency.decode);

    // A slot 100 tokens deep reads less KV than one at 256.
    SlotState deep = slot(0, true, 60, 40);
    deep.nCtx = 512;
    speed = liveSpeed(model, *estimate, bandwidth, efficiency, {deep}, {slotRate(0, 900)}, totalsAt(1000.0));
    ASSERT_TRUE(speed.has_value());
    EXPECT_EQ(speed->depthTokens, 100u);
    EXPECT_EQ(speed->measured.source, MeasuredRateSource::Slots);
    EXPECT_EQ(speed->bytesPerToken, estimateDecodeSpeed(model, *estimate, bandwidth, 100).totalBytesPerToken);
    EXPECT_LT(speed->bytesPerToken, half.totalBytesPerToken);

    EXPECT_FALSE(
        liveSpeed(model, *estimate, bandwidth, efficiency, {}, {}, totalsAt(std::nullopt)).has_value());
}

} // namespace
} // namespace llamafit

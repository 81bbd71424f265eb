// Learning from live runs (issue 15 item 2): the tally counts every token the counters gained
// between two samples against the bound of that moment, short runs teach nothing, and the
// stored file reads back to the same records and to one decode sample per run. Figures worked
// out by hand: a bound of bandwidth / bytes per step tokens per second per slot.
#include "core/server/liverunrecord.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

RunTotals totals(std::uint64_t tokens, double seconds) {
    RunTotals run;
    run.generatedTokens = tokens;
    if (seconds > 0) {
        run.generationTokensPerSecond = static_cast<double>(tokens) / seconds;
    }
    return run;
}

// A comparison whose bound is `boundTps` per slot: 100 GB/s over 100e9 / boundTps bytes a step.
LiveSpeed speedWithBound(double boundTps) {
    LiveSpeed speed;
    speed.machineBytesPerSecond = 100'000'000'000ULL;
    speed.bytesPerToken = static_cast<std::uint64_t>(100e9 / boundTps);
    return speed;
}

TEST(LiveRunTally, CountsWhatTheCountersGainedAgainstThatMomentsBound) {
    LiveRunTally tally;
    tally = tallyLiveRun(tally, totals(0, 0), speedWithBound(100)); // nothing finished yet
    EXPECT_EQ(tally.generatedTokens, 0u);
    tally = tallyLiveRun(tally, totals(600, 10), speedWithBound(100)); // 600 tokens, 10 s at 60 t/s
    tally = tallyLiveRun(tally, totals(600, 10), speedWithBound(100)); // idle: nothing new
    tally = tallyLiveRun(tally, totals(1000, 18), speedWithBound(50)); // 400 more in 8 s, deeper KV
    EXPECT_EQ(tally.generatedTokens, 1000u);
    EXPECT_NEAR(tally.generationSeconds, 18.0, 1e-9);
    EXPECT_NEAR(tally.boundSeconds, 600.0 / 100 + 400.0 / 50, 1e-6); // 14 s at the bound

    LiveRunRecord identity;
    identity.machineId = "rtx-4060";
    EXPECT_FALSE(finishLiveRun(tally, identity).has_value()) << "under kMinLearnedLiveTokens";
    tally = tallyLiveRun(tally, totals(1100, 20), speedWithBound(50));
    const std::optional<LiveRunRecord> record = finishLiveRun(tally, identity);
    ASSERT_TRUE(record.has_value());
    EXPECT_EQ(record->machineId, "rtx-4060");
    EXPECT_EQ(record->generatedTokens, 1100u);
    EXPECT_NEAR(record->decodeTps, 1100.0 / 20, 1e-9);
    EXPECT_NEAR(record->boundTps, 1100.0 / 16, 1e-6);
}

TEST(LiveRunTally, TokensWithoutABoundAreSeenButTeachNothing) {
    LiveRunTally tally;
    tally = tallyLiveRun(tally, totals(5000, 50), std::nullopt);
    LiveSpeed noMachine = speedWithBound(100);
    noMachine.machineBytesPerSecond.reset();
    tally = tallyLiveRun(tally, totals(9000, 90), noMachine);
    EXPECT_EQ(tally.generatedTokens, 0u);
    EXPECT_EQ(tally.seenTokens, 9000u);
    EXPECT_FALSE(finishLiveRun(tally, {}).has_value());
    // From here on a bound counts only the new tokens.
    tally = tallyLiveRun(tally, totals(10'100, 100), speedWithBound(200));
    EXPECT_EQ(tally.generatedTokens, 1100u);
    EXPECT_NEAR(tally.generationSeconds, 10.0, 1e-9);
}

TEST(LiveRunTally, CountersThatWentBackStartOverFromThere) {
    LiveRunTally tally = tallyLiveRun({}, totals(800, 8), speedWithBound(100));
    tally = tallyLiveRun(tally, totals(100, 1), speedWithBound(100)); // a restarted server
    EXPECT_EQ(tally.seenTokens, 100u);
    tally = tallyLiveRun(tally, totals(400, 4), speedWithBound(100));
    EXPECT_EQ(tally.generatedTokens, 800u + 300u);
}

TEST(LiveRunRecords, RoundTripAndBecomeOneLiveDecodeSampleEach) {
    LiveRunRecord run;
    run.machineId = "strix-halo-32-32";
    run.modelPath = "/models/Qwen3.5-35B-A3B-Q6_K.gguf";
    run.modelFileBytes = 28'000'000'000ULL;
    run.backend = Backend::Vulkan;
    run.moe = true;
    run.startedAt = "2026-12-01T10:00:00Z";
    run.endedAt = "2026-12-01T10:30:00Z";
    run.generatedTokens = 52'000;
    run.decodeTps = 53.7;
    run.boundTps = 99.8;
    run.efficiencySource = "public-defaults";
    const Result<std::vector<LiveRunRecord>> back = liveRunsFromJson(liveRunsToJson({run, run}));
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->size(), 2u);
    EXPECT_EQ(back->front(), run);

    const std::vector<EfficiencySample> samples = efficiencySamples(*back);
    ASSERT_EQ(samples.size(), 2u);
    EXPECT_TRUE(samples[0].live);
    EXPECT_FALSE(samples[0].prompt);
    EXPECT_EQ(samples[0].backend, Backend::Vulkan);
    EXPECT_TRUE(samples[0].moe);
    EXPECT_DOUBLE_EQ(samples[0].measuredTps / samples[0].boundTps, 53.7 / 99.8);
}

TEST(LiveRunRecords, AnotherFileOrAWrongFieldIsANamedError) {
    for (const char* text :
         {"", "[]", R"({"format":"llamafit-benchmarks","runs":[]})", R"({"format":"llamafit-live-runs"})",
          R"({"format":"llamafit-live-runs","runs":[{"machine":"m","model_path":"p",)"
          R"("generated_tokens":"many","decode_tps":1,"decode_tps_bound":2}]})",
          R"({"format":"llamafit-live-runs","runs":[{"machine":1}]})"}) {
        const Result<std::vector<LiveRunRecord>> parsed = liveRunsFromJson(text);
        ASSERT_FALSE(parsed.ok()) << text;
        EXPECT_EQ(parsed.error().code, "bench.bad-record") << text;
        EXPECT_NE(parsed.error().message.find("live-run file"), std::string::npos) << parsed.error().message;
    }
}

} // namespace
} // namespace llamafit

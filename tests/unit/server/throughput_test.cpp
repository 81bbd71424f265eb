#include "core/server/throughput.h"

#include "tests/unit/server/serverdata.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using testdata::readServerCapture;

SlotState slot(std::int32_t id, std::optional<std::int64_t> task, bool processing, std::uint64_t decoded) {
    SlotState s;
    s.id = id;
    s.taskId = task;
    s.isProcessing = processing;
    s.decodedTokens = decoded;
    return s;
}

TEST(SlotThroughputTest, RealCapturesTwoSlotsOneSecondApart) {
    const auto before = parseSlotsJson(readServerCapture("slots-gen1.json"));
    const auto after = parseSlotsJson(readServerCapture("slots-gen2.json"));
    ASSERT_TRUE(before.ok() && after.ok());
    const auto rates = slotThroughput(*before, 100.0, *after, 102.0);
    ASSERT_TRUE(rates.ok()) << rates.error().message;
    ASSERT_EQ(rates->size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        const double expected =
            static_cast<double>((*after)[i].decodedTokens - (*before)[i].decodedTokens) / 2.0;
        EXPECT_GT(expected, 0);
        EXPECT_DOUBLE_EQ((*rates)[i].tokensPerSecond, expected);
        EXPECT_FALSE((*rates)[i].restarted);
        EXPECT_FALSE((*rates)[i].finished);
    }
}

TEST(SlotThroughputTest, NewRequestCountsOnlyItsTokens) {
    const auto rates = slotThroughput({slot(0, 5, true, 300)}, 1.0, {slot(0, 6, true, 40)}, 2.0);
    ASSERT_TRUE(rates.ok());
    EXPECT_TRUE((*rates)[0].restarted);
    EXPECT_DOUBLE_EQ((*rates)[0].tokensPerSecond, 40.0);
    // From a slot that never ran (no task id) to a running one.
    const auto fresh = slotThroughput({slot(0, std::nullopt, false, 0)}, 1.0, {slot(0, 2, true, 10)}, 1.5);
    ASSERT_TRUE(fresh.ok());
    EXPECT_DOUBLE_EQ((*fresh)[0].tokensPerSecond, 20.0);
}

TEST(SlotThroughputTest, FinishedAndIdleSlotsReadZero) {
    const auto rates = slotThroughput({slot(0, 5, true, 300), slot(1, 3, false, 0)}, 1.0,
                                      {slot(0, 5, false, 0), slot(1, 3, false, 0), slot(2, 1, true, 9)}, 2.0);
    ASSERT_TRUE(rates.ok());
    ASSERT_EQ(rates->size(), 2u); // slot 2 has no earlier sample
    EXPECT_TRUE((*rates)[0].finished);
    EXPECT_EQ((*rates)[0].tokensPerSecond, 0);
    EXPECT_EQ((*rates)[1].tokensPerSecond, 0);
    EXPECT_EQ(slotThroughput({}, 2.0, {}, 2.0).error().code, "server.bad-interval");
}

TEST(TotalThroughputTest, RealCapturesAgreeWithPerSlotSum) {
    const auto m1 = parsePrometheusMetrics(readServerCapture("metrics-gen1.txt"));
    const auto m2 = parsePrometheusMetrics(readServerCapture("metrics-gen2.txt"));
    const auto s1 = parseSlotsJson(readServerCapture("slots-gen1.json"));
    const auto s2 = parseSlotsJson(readServerCapture("slots-gen2.json"));
    ASSERT_TRUE(m1.ok() && m2.ok() && s1.ok() && s2.ok());
    const auto total = totalThroughput(*m1, 10.0, *m2, 11.0);
    ASSERT_TRUE(total.ok());
    EXPECT_DOUBLE_EQ(total->decodeCallsPerSecond, m2->decodeCallsTotal - m1->decodeCallsTotal);
    // Two busy slots: each decode call produced about two tokens.
    EXPECT_NEAR(total->decodedTokensPerSecond / total->decodeCallsPerSecond, 2.0, 0.02);
    // Nothing finished in the interval, and the gauges said 0 throughout.
    EXPECT_FALSE(total->finishedGenerationTokensPerSecond.has_value());
    EXPECT_EQ(m2->predictedTokensPerSecond, 0);
    // /slots and /metrics were scraped a few ms apart, so their intervals differ slightly.
    const auto slots = slotThroughput(*s1, 10.0, *s2, 11.0);
    ASSERT_TRUE(slots.ok());
    const double perSlotSum = (*slots)[0].tokensPerSecond + (*slots)[1].tokensPerSecond;
    EXPECT_NEAR(total->decodedTokensPerSecond, perSlotSum, 0.15 * perSlotSum);
}

TEST(TotalThroughputTest, FinishedRequestsFromCounters) {
    const auto idle = parsePrometheusMetrics(readServerCapture("metrics-busy.txt"));
    const auto done = parsePrometheusMetrics(readServerCapture("metrics-after.txt"));
    ASSERT_TRUE(idle.ok() && done.ok());
    const auto total = totalThroughput(*idle, 0.0, *done, 13.0);
    ASSERT_TRUE(total.ok());
    ASSERT_TRUE(total->finishedGenerationTokensPerSecond.has_value());
    EXPECT_DOUBLE_EQ(*total->finishedGenerationTokensPerSecond,
                     done->tokensPredictedTotal / done->tokensPredictedSecondsTotal);
    // The server's own gauge (one request finished) leaves out the request's first token,
    // which comes free with the prompt's logits (tools/server n_gen_steps = n_gen - 1).
    EXPECT_NEAR((done->tokensPredictedTotal - 1) / done->tokensPredictedSecondsTotal,
                done->predictedTokensPerSecond, 0.001);
    ASSERT_TRUE(total->finishedPromptTokensPerSecond.has_value());
    EXPECT_NEAR(*total->finishedPromptTokensPerSecond, done->promptTokensPerSecond, 0.01);
    EXPECT_FALSE(total->counterReset);
}

// Run totals come from one sample's counters: a real capture after one finished request.
TEST(RunTotalsTest, CountEveryFinishedTokenFromTheCounters) {
    const auto idle = parsePrometheusMetrics(readServerCapture("metrics-idle.txt"));
    const auto done = parsePrometheusMetrics(readServerCapture("metrics-after.txt"));
    ASSERT_TRUE(idle.ok() && done.ok());
    EXPECT_EQ(runTotals(*idle), RunTotals{});
    const RunTotals totals = runTotals(*done);
    EXPECT_EQ(totals.generatedTokens, static_cast<std::uint64_t>(done->tokensPredictedTotal));
    EXPECT_GT(totals.generatedTokens, 0u);
    EXPECT_EQ(totals.promptTokens, static_cast<std::uint64_t>(done->promptTokensTotal));
    ASSERT_TRUE(totals.generationTokensPerSecond.has_value());
    EXPECT_DOUBLE_EQ(*totals.generationTokensPerSecond,
                     done->tokensPredictedTotal / done->tokensPredictedSecondsTotal);
    ASSERT_TRUE(totals.promptTokensPerSecond.has_value());
    EXPECT_NEAR(*totals.promptTokensPerSecond, done->promptTokensPerSecond, 0.01);
}

TEST(TotalThroughputTest, CounterResetCountsFromZero) {
    ServerMetrics before;
    before.decodeCallsTotal = 1000;
    before.busySlotsPerDecode = 1;
    ServerMetrics after;
    after.decodeCallsTotal = 30;
    after.busySlotsPerDecode = 1;
    const auto total = totalThroughput(before, 1.0, after, 2.0);
    ASSERT_TRUE(total.ok());
    EXPECT_TRUE(total->counterReset);
    EXPECT_DOUBLE_EQ(total->decodeCallsPerSecond, 30);
    EXPECT_DOUBLE_EQ(total->decodedTokensPerSecond, 30);
    EXPECT_EQ(totalThroughput(before, 2.0, after, 1.0).error().code, "server.bad-interval");
}

TEST(TimingLineTest, ParsesCapturedPrintTiming) {
    const std::vector<TimingLine> lines = parseTimingLines(readServerCapture("run-np2-generate.log"));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0].kind, TimingLine::Kind::Progress);
    EXPECT_EQ(lines[0].tokens, 100u);
    EXPECT_DOUBLE_EQ(lines[0].tokensPerSecond, 9.14);
    EXPECT_EQ(lines[0].recentTokensPerSecond, 9.23);
    EXPECT_EQ(lines[1].kind, TimingLine::Kind::PromptEval);
    EXPECT_EQ(lines[1].tokens, 17u);
    EXPECT_DOUBLE_EQ(lines[1].milliseconds, 511.01);
    EXPECT_EQ(lines[2].kind, TimingLine::Kind::Eval);
    EXPECT_EQ(lines[2].tokens, 400u);
    EXPECT_EQ(lines[2].task, 2);
    EXPECT_EQ(lines[2].slot, 0);
    // n_gen - 1 decode steps: the first token comes with the prompt's logits.
    EXPECT_NEAR(lines[2].tokensPerSecond, (lines[2].tokens - 1) / (lines[2].milliseconds / 1000.0), 0.005);
    EXPECT_NEAR(lines[1].tokensPerSecond, lines[1].tokens / (lines[1].milliseconds / 1000.0), 0.005);
    EXPECT_EQ(lines[3].kind, TimingLine::Kind::Total);
    EXPECT_EQ(lines[3].tokens, 417u);
    // The log's eval line and /metrics describe the same request.
    const auto metrics = parsePrometheusMetrics(readServerCapture("metrics-after.txt"));
    ASSERT_TRUE(metrics.ok());
    EXPECT_NEAR(lines[2].milliseconds / 1000.0, metrics->tokensPredictedSecondsTotal, 0.001);
}

TEST(TimingLineTest, OtherLinesAreNotTimings) {
    EXPECT_FALSE(
        parseTimingLine("slot print_timing: id  0 | task 2 |    graphs reused =        397").has_value());
    EXPECT_FALSE(parseTimingLine("srv  update_slots: all slots are idle").has_value());
    EXPECT_FALSE(parseTimingLine("slot print_timing: id  x | task 2 | n_gen = 1, tg = 1 t/s").has_value());
}

} // namespace
} // namespace llamafit

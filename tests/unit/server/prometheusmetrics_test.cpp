#include "core/server/prometheusmetrics.h"

#include "tests/unit/server/serverdata.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llamafit {
namespace {

using testdata::readServerCapture;

TEST(PrometheusMetricsTest, ReadsEveryNameOfAFinishedRequest) {
    // One 17-token prompt and 400 generated tokens, scraped right after the request ended.
    const Result<ServerMetrics> metrics = parsePrometheusMetrics(readServerCapture("metrics-after.txt"));
    ASSERT_TRUE(metrics.ok()) << metrics.error().message;
    EXPECT_EQ(metrics->promptTokensTotal, 17);
    EXPECT_EQ(metrics->promptTokensCachedTotal, 0);
    EXPECT_DOUBLE_EQ(metrics->promptSecondsTotal, 0.510929);
    EXPECT_EQ(metrics->tokensPredictedTotal, 400);
    EXPECT_DOUBLE_EQ(metrics->tokensPredictedSecondsTotal, 12.4784);
    EXPECT_EQ(metrics->decodeCallsTotal, 400);
    EXPECT_EQ(metrics->tokensMax, 416);
    EXPECT_DOUBLE_EQ(metrics->promptTokensPerSecond, 33.2727);
    EXPECT_DOUBLE_EQ(metrics->predictedTokensPerSecond, 31.9752);
    EXPECT_EQ(metrics->requestsProcessing, 0);
    EXPECT_EQ(metrics->requestsDeferred, 0);
    EXPECT_EQ(metrics->busySlotsPerDecode, 1);
    EXPECT_EQ(metrics->samples.size(), 15u);
    EXPECT_EQ(metrics->samples.at("llamacpp:spec_decode_num_drafts_total"), 0);
}

TEST(PrometheusMetricsTest, GaugesResetOnTheNextScrapeButCountersStay) {
    // Why throughput must not come from the gauges: the second scrape, with nothing in
    // between, reads 0 tokens/s while the counters are unchanged.
    const Result<ServerMetrics> first = parsePrometheusMetrics(readServerCapture("metrics-after.txt"));
    const Result<ServerMetrics> second = parsePrometheusMetrics(readServerCapture("metrics-after2.txt"));
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_GT(first->predictedTokensPerSecond, 0);
    EXPECT_EQ(second->predictedTokensPerSecond, 0);
    EXPECT_EQ(second->promptTokensPerSecond, 0);
    EXPECT_EQ(second->tokensPredictedTotal, first->tokensPredictedTotal);
    EXPECT_EQ(second->decodeCallsTotal, first->decodeCallsTotal);
}

TEST(PrometheusMetricsTest, DuringGenerationOnlyDecodeCountMoves) {
    const Result<ServerMetrics> early = parsePrometheusMetrics(readServerCapture("metrics-gen1.txt"));
    const Result<ServerMetrics> later = parsePrometheusMetrics(readServerCapture("metrics-gen2.txt"));
    ASSERT_TRUE(early.ok() && later.ok());
    EXPECT_GT(later->decodeCallsTotal, early->decodeCallsTotal);
    EXPECT_EQ(later->tokensPredictedTotal, 0);
    EXPECT_EQ(later->predictedTokensPerSecond, 0);
    EXPECT_EQ(later->requestsProcessing, 2);
    EXPECT_NEAR(later->busySlotsPerDecode, 2, 0.01);
}

TEST(PrometheusMetricsTest, LabelsTimestampsAndSpecialValues) {
    const Result<ServerMetrics> metrics =
        parsePrometheusMetrics("# TYPE x counter\n"
                               "llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position=\"1 2\"} 7\n"
                               "llamacpp:n_decode_total 12 1700000000000\r\n"
                               "other_metric NaN\n"
                               "\n");
    ASSERT_TRUE(metrics.ok()) << metrics.error().message;
    EXPECT_EQ(metrics->samples.at("llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position=\"1 2\"}"),
              7);
    EXPECT_EQ(metrics->decodeCallsTotal, 12);
    EXPECT_TRUE(std::isnan(metrics->samples.at("other_metric")));
}

TEST(PrometheusMetricsTest, RejectsALineWithoutANumber) {
    const Result<ServerMetrics> metrics = parsePrometheusMetrics("llamacpp:n_decode_total twelve\n");
    ASSERT_FALSE(metrics.ok());
    EXPECT_EQ(metrics.error().code, "server.bad-metrics");
    EXPECT_NE(metrics.error().message.find("line 1"), std::string::npos);
    EXPECT_FALSE(parsePrometheusMetrics("llamacpp:n_decode_total\n").ok());
    EXPECT_FALSE(parsePrometheusMetrics("<html>501 Not Implemented</html>\n").ok());
}

} // namespace
} // namespace llamafit

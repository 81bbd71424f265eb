// compareBenchRow: a row's measured rate next to the speed model's figures of its kind, as the
// CLI's table and the GUI's table and chart show them.
#include "core/server/benchprediction.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

BenchRowPrediction prediction() {
    BenchRowPrediction p;
    p.decodeTpsBound = 100;
    p.decodeTpsExpected = 70;
    p.promptTpsBound = 2000;
    p.promptTpsExpected = 600;
    return p;
}

TEST(BenchRowComparison, GenerationRowsCompareWithTheDecodeFigures) {
    BenchRow row;
    row.generatedTokens = 128;
    row.averageTps = 50;
    row.stddevTps = 2;
    const BenchRowComparison c = compareBenchRow(row, prediction());
    EXPECT_EQ(c.measuredTps, 50);
    EXPECT_EQ(c.stddevTps, 2);
    EXPECT_EQ(c.boundTps, 100);
    EXPECT_EQ(c.expectedTps, 70);
    ASSERT_TRUE(c.expectedError.has_value());
    EXPECT_DOUBLE_EQ(*c.expectedError, 0.4); // expected 70 against 50 measured: 40 % high
}

TEST(BenchRowComparison, PromptRowsCompareWithThePromptFiguresAndUnknownsStayUnknown) {
    BenchRow row;
    row.promptTokens = 512;
    row.averageTps = 800;
    const BenchRowComparison c = compareBenchRow(row, prediction());
    EXPECT_EQ(c.boundTps, 2000);
    EXPECT_EQ(c.expectedTps, 600);
    EXPECT_DOUBLE_EQ(*c.expectedError, -0.25);

    BenchRowPrediction unknown = prediction();
    unknown.promptTpsExpected.reset(); // no FP16 figure for the machine
    EXPECT_EQ(compareBenchRow(row, unknown).expectedTps, 0);
    EXPECT_FALSE(compareBenchRow(row, unknown).expectedError.has_value());
    row.averageTps = 0; // a row llama-bench could not time
    EXPECT_FALSE(compareBenchRow(row, prediction()).expectedError.has_value());
}

} // namespace
} // namespace llamafit

// The stored benchmark file (benchrecord.h): a "format" of another type is a named error.
namespace llamafit {
namespace {

TEST(BenchRecordFile, AFormatThatIsNotTheStringIsABadRecord) {
    for (const char* text : {R"({"format": 5, "version": 1, "runs": []})", R"({"version": 1, "runs": []})"}) {
        const Result<std::vector<BenchRecord>> records = benchRecordsFromJson(text);
        ASSERT_FALSE(records.ok()) << text;
        EXPECT_EQ(records.error().code, "bench.bad-record") << text;
    }
    EXPECT_TRUE(benchRecordsFromJson(benchRecordsToJson({})).ok());
}

} // namespace
} // namespace llamafit

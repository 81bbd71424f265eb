#include "core/server/logscanner.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(LogScannerTest, StripsTimestampAndLevel) {
    const LogLine line =
        stripLogPrefix("0.00.186.930 I llama_context:        CPU  output buffer size =     0.49 MiB");
    EXPECT_EQ(line.level, 'I');
    EXPECT_EQ(line.text, "llama_context:        CPU  output buffer size =     0.49 MiB");
}

TEST(LogScannerTest, StripsLevelWithoutTimestamp) {
    const LogLine line =
        stripLogPrefix("E llama_init_from_model: quantized V cache requires flash_attn to be enabled");
    EXPECT_EQ(line.level, 'E');
    EXPECT_EQ(line.text, "llama_init_from_model: quantized V cache requires flash_attn to be enabled");
}

TEST(LogScannerTest, KeepsLineWithoutPrefix) {
    const LogLine line = stripLogPrefix("load_tensors:   CPU_Mapped model buffer size =  2357.26 MiB");
    EXPECT_EQ(line.level, '\0');
    EXPECT_EQ(line.text, "load_tensors:   CPU_Mapped model buffer size =  2357.26 MiB");
}

TEST(LogScannerTest, LeadingNumberThatIsNotATimestampStays) {
    // Continuation lines of a multi-line message (a chat template) may start with anything.
    const LogLine line = stripLogPrefix("12abc I not a prefix");
    EXPECT_EQ(line.level, '\0');
    EXPECT_EQ(line.text, "12abc I not a prefix");
}

TEST(LogScannerTest, MatchesPrintfPaddedFields) {
    LogScanner s("(  4096 cells,  16 layers,  4/1 seqs)");
    std::uint32_t cells = 0, layers = 0, seqs = 0, streams = 0;
    ASSERT_TRUE(s.literal("(") && s.unsignedNumber(cells) && s.literal("cells,") &&
                s.unsignedNumber(layers) && s.literal("layers,") && s.unsignedNumber(seqs) &&
                s.literal("/") && s.unsignedNumber(streams) && s.literal("seqs)"));
    EXPECT_EQ(cells, 4096u);
    EXPECT_EQ(layers, 16u);
    EXPECT_EQ(seqs, 4u);
    EXPECT_EQ(streams, 1u);
    EXPECT_TRUE(s.atEnd());
}

TEST(LogScannerTest, FailedMatchLeavesCursor) {
    LogScanner s("  size =  128.00 MiB");
    EXPECT_FALSE(s.literal("cells"));
    double mib = 0;
    EXPECT_FALSE(s.decimal(mib));
    EXPECT_TRUE(s.literal("size ="));
    EXPECT_TRUE(s.decimal(mib));
    EXPECT_DOUBLE_EQ(mib, 128.0);
}

TEST(LogScannerTest, WordStopsAtDelimiter) {
    LogScanner s("K (q8_0):   34.00 MiB");
    std::string type;
    ASSERT_TRUE(s.literal("K (") && s.word(type, ')'));
    EXPECT_EQ(type, "q8_0");
}

TEST(LogScannerTest, SignedNumbers) {
    LogScanner s(" -12 + 7");
    std::int64_t a = 0, b = 0;
    ASSERT_TRUE(s.signedNumber(a) && s.literal("+") && s.signedNumber(b));
    EXPECT_EQ(a, -12);
    EXPECT_EQ(b, 7);
}

} // namespace
} // namespace llamafit

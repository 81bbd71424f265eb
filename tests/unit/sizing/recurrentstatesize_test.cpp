// Recurrent-state (RS) and output buffers against §2.3 / §2.6 / §7 of llama-cpp-memory.md.
#include "core/sizing/estimator.h"
#include "tests/unit/sizing/estimatequery.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using test::kLogRoundingMiB;
using test::mib;

MemoryEstimate estimate(const ModelInfo& model, std::optional<std::uint32_t> c,
                        std::optional<std::uint32_t> np) {
    ServerSettings s;
    s.contextTokens = c;
    s.parallelSlots = np;
    auto result = estimateMemory(model, s);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    return result.ok() ? result.value() : MemoryEstimate{};
}

TEST(RecurrentStateSize, Qwen35AtFourSlots) {
    // "RS buffer size = 251.25 MiB ... R (f32): 11.25 MiB, S (f32): 240.00 MiB" with -np auto.
    const MemoryEstimate e = estimate(test::qwen35_35B_A3B(), 4096, std::nullopt);
    EXPECT_EQ(e.rs.cells, 4u);
    EXPECT_EQ(e.rs.layers, 30u);
    EXPECT_NEAR(mib(e.rs.rBytes), 11.25, kLogRoundingMiB);
    EXPECT_NEAR(mib(e.rs.sBytes), 240.00, kLogRoundingMiB);
    EXPECT_NEAR(mib(e.totals.rsBytes), 251.25, kLogRoundingMiB);
    EXPECT_NEAR(mib(test::bufferBytes(e, "CPU", "CPU", Component::Rs)), 251.25, kLogRoundingMiB);
}

TEST(RecurrentStateSize, Qwen35OneSlotAndContextIndependence) {
    EXPECT_NEAR(mib(estimate(test::qwen35_35B_A3B(), 32768, 1).totals.rsBytes), 62.81, kLogRoundingMiB);
    EXPECT_EQ(estimate(test::qwen35_35B_A3B(), 4096, 1).totals.rsBytes,
              estimate(test::qwen35_35B_A3B(), 65536, 1).totals.rsBytes);
}

TEST(RecurrentStateSize, TransformersHaveNone) {
    const MemoryEstimate e = estimate(test::llama1B(), 4096, 1);
    EXPECT_EQ(e.totals.rsBytes, 0u);
    EXPECT_EQ(e.rs.cells, 0u);
}

TEST(OutputBuffer, OneLogitsRowPerSlot) {
    // 128256*4 = 0.49; 128256*4*4 = 1.96; 248320*4*4 = 3.79; 262144*4*4 = 4.00; 248320*4 = 0.95 MiB.
    EXPECT_NEAR(mib(estimate(test::llama1B(), 4096, 1).totals.outputBytes), 0.49, kLogRoundingMiB);
    EXPECT_NEAR(mib(estimate(test::llama1B(), 4096, 4).totals.outputBytes), 1.96, kLogRoundingMiB);
    EXPECT_NEAR(mib(estimate(test::llama1B(), 4096, std::nullopt).totals.outputBytes), 1.96, kLogRoundingMiB);
    EXPECT_NEAR(mib(estimate(test::qwen35_35B_A3B(), 4096, std::nullopt).totals.outputBytes), 3.79,
                kLogRoundingMiB);
    EXPECT_NEAR(mib(estimate(test::qwen35_35B_A3B(), 32768, 1).totals.outputBytes), 0.95, kLogRoundingMiB);
    const MemoryEstimate gemma = estimate(test::gemma3_1B(), 8192, std::nullopt);
    EXPECT_NEAR(mib(gemma.totals.outputBytes), 4.00, kLogRoundingMiB);
    EXPECT_EQ(test::bufferBytes(gemma, "CPU", "CPU", Component::Output), gemma.totals.outputBytes);
}

} // namespace
} // namespace llamafit

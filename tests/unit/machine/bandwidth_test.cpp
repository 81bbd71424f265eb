// The bandwidth-bound decode estimate: seed 003's RTX 4060 numbers (272 GB/s / (weights + KV)
// = 30 / 39 / 46 t/s for f16 / q8_0 / q4_0 KV at 32K), and seed 000's measured 53.6 t/s on
// a Strix Halo staying below the bound.
#include "core/common/units.h"
#include "core/machine/bandwidth.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llamafit {
namespace {

TEST(Bandwidth, KnownFiguresAndBusArithmetic) {
    EXPECT_EQ(findKnownBandwidth("rtx-4060")->bytesPerSecond, 272'000'000'000u);
    EXPECT_EQ(findKnownBandwidth("rtx-3090")->bytesPerSecond, 936'000'000'000u);
    EXPECT_EQ(findKnownBandwidth("strix-halo")->bytesPerSecond, busBandwidthBytesPerSecond(8000, 256));
    EXPECT_EQ(busBandwidthBytesPerSecond(5600, 128), findKnownBandwidth("ddr5-5600-dual")->bytesPerSecond);
    EXPECT_FALSE(findKnownBandwidth("abacus").has_value());
}

// Seed 003's own arithmetic, with its own inputs (GB as it writes them).
TEST(Bandwidth, SeedThreeFormula) {
    constexpr std::uint64_t kGB = 1'000'000'000ULL;
    EXPECT_EQ(std::floor(decodeTokensPerSecond(272 * kGB, 4'900'000'000ULL + 4 * kGB)), 30.0);
    EXPECT_EQ(std::floor(decodeTokensPerSecond(272 * kGB, 4'900'000'000ULL + 2 * kGB)), 39.0);
    EXPECT_EQ(std::floor(decodeTokensPerSecond(272 * kGB, 4'900'000'000ULL + 1 * kGB)), 46.0);
    EXPECT_EQ(decodeTokensPerSecond(272 * kGB, 0), 0.0);
}

// The same three cases from the Llama-3-8B Q4_K_M card and the exact KV sizes (q8_0 is 34 B
// per 32 values, not 1 B: 2176 MiB, not 2 GiB) still land on seed 003's 30 / 39 / 46 t/s.
TEST(Bandwidth, SeedThreeFromTheModelCard) {
    const ModelInfo model = test::cardModel("llama-3-8b-q4_k_m");
    Result<Machine> rtx = findBuiltinMachine("rtx-4060-8gb");
    ASSERT_TRUE(rtx.ok());
    const std::pair<GgmlType, double> cases[] = {
        {GgmlType::F16, 30}, {GgmlType::Q8_0, 39}, {GgmlType::Q4_0, 46}};
    for (const auto& [type, expected] : cases) {
        ServerSettings settings;
        settings.contextTokens = 32768;
        settings.parallelSlots = 1;
        settings.cacheTypeK = type;
        settings.cacheTypeV = type;
        const MemoryEstimate estimate = test::estimateOn(model, settings, *rtx);
        const DecodeSpeedEstimate speed = estimateDecodeSpeed(model, estimate, *rtx->bandwidthBytesPerSecond);
        EXPECT_EQ(speed.filledTokens, 32768u);
        EXPECT_EQ(speed.kvBytesPerToken, estimate.totals.kvBytes);
        EXPECT_EQ(speed.rsBytesPerToken, 0u);
        EXPECT_NEAR(speed.tokensPerSecond, expected, 1.0)
            << ggmlTypeName(type) << " " << speed.tokensPerSecond;
    }
}

TEST(Bandwidth, MoeReadsOnlyTheRoutedExperts) {
    const ModelInfo model = test::seedModel();
    const std::uint64_t active = activeWeightBytesPerToken(model);
    // 8 of 256 experts per token: a few GiB of the 26.6 GiB file.
    EXPECT_LT(active, model.weightBytes() / 5);
    EXPECT_GT(active, kGiB);

    const MemoryEstimate estimate = test::estimateOn(model, test::seedSettings(), test::seedMachine());
    const DecodeSpeedEstimate full = estimateDecodeSpeed(model, estimate, 256'000'000'000ULL);
    const DecodeSpeedEstimate empty = estimateDecodeSpeed(model, estimate, 256'000'000'000ULL, 0u);
    EXPECT_EQ(empty.kvBytesPerToken, 0u);
    EXPECT_EQ(full.kvBytesPerToken, estimate.totals.kvBytes);
    EXPECT_EQ(full.rsBytesPerToken, 65863680u);
    // Seed 000 measured 53.6 t/s at 65K with q8_0 KV: below the bandwidth bound, within 2x of it.
    EXPECT_GT(full.tokensPerSecond, 53.6);
    EXPECT_LT(full.tokensPerSecond, 2 * 53.6);
    EXPECT_GT(empty.tokensPerSecond, full.tokensPerSecond);
}

} // namespace
} // namespace llamafit

// Solvers: "does not fit" is a result; the largest context fits and 256 more does not.
#include "core/common/units.h"
#include "core/sizing/solvers.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

std::uint64_t hostTotal(const ModelInfo& model, ServerSettings s, std::uint32_t c, GgmlType k, GgmlType v) {
    s.contextTokens = c;
    s.cacheTypeK = k;
    s.cacheTypeV = v;
    return estimateMemory(model, s)->devices[0].bytes.totalBytes();
}

TEST(Solvers, FitsBudgetChecksEveryDeviceAndZeroMeansUnconstrained) {
    MemoryEstimate e;
    e.devices = {{"CPU", true, {100, 0, 0, 0, 0, 0}, {}}, {"CUDA0", false, {50, 0, 0, 0, 0, 0}, {}}};
    EXPECT_TRUE(fitsBudget(e, {}));
    EXPECT_TRUE(fitsBudget(e, {100, {50}}));
    EXPECT_FALSE(fitsBudget(e, {99, {50}}));
    EXPECT_FALSE(fitsBudget(e, {0, {49}}));
    EXPECT_TRUE(fitsBudget(e, {0, {0}}));
}

TEST(Solvers, LargestContextFitsAndOneMoreStepDoesNot) {
    const ModelInfo model = test::llama3_8B();
    ServerSettings s;
    s.parallelSlots = 1;
    const MemoryBudget budget{8 * kGiB, {}};
    const auto fits = largestContextPerKvPair(
        model, s, {}, budget,
        {{GgmlType::F16, GgmlType::F16}, {GgmlType::Q8_0, GgmlType::Q8_0}, {GgmlType::Q4_0, GgmlType::Q4_0}});
    ASSERT_EQ(fits.size(), 3u);
    std::uint32_t previous = 0;
    for (const auto& fit : fits) {
        ASSERT_TRUE(fit.fits) << fit.overrun.device;
        EXPECT_EQ(fit.contextTokens % 256, 0u);
        EXPECT_LE(hostTotal(model, s, fit.contextTokens, fit.typeK, fit.typeV), budget.hostBytes);
        EXPECT_GT(hostTotal(model, s, fit.contextTokens + 256, fit.typeK, fit.typeV), budget.hostBytes);
        EXPECT_EQ(fit.totalBytes, hostTotal(model, s, fit.contextTokens, fit.typeK, fit.typeV));
        // Smaller cache types reach further: monotone in the type's bytes per value.
        EXPECT_GT(fit.contextTokens, previous);
        previous = fit.contextTokens;
    }
}

TEST(Solvers, LargestContextIsMonotoneInTheBudget) {
    const ModelInfo model = test::qwen35_35B_A3B();
    ServerSettings s;
    std::uint32_t previous = 0;
    for (std::uint64_t gib : {36, 37, 38, 40}) {
        const auto fits =
            largestContextPerKvPair(model, s, {}, {gib * kGiB, {}}, {{GgmlType::Q8_0, GgmlType::Q8_0}});
        ASSERT_TRUE(fits[0].fits) << fits[0].overrun.device;
        EXPECT_GE(fits[0].contextTokens, previous);
        EXPECT_LE(fits[0].contextTokens, model.trainingContext);
        previous = fits[0].contextTokens;
    }
    EXPECT_EQ(previous, model.trainingContext); // 40 GiB holds the full 262144 tokens
}

TEST(Solvers, DoesNotFitIsAResultWithAReason) {
    ServerSettings s;
    s.parallelSlots = 1;
    const auto fits =
        largestContextPerKvPair(test::llama3_8B(), s, {}, {1 * kGiB, {}}, {{GgmlType::F16, GgmlType::F16}});
    ASSERT_EQ(fits.size(), 1u);
    EXPECT_FALSE(fits[0].fits);
    EXPECT_EQ(fits[0].failure, FitFailure::OverBudgetAtSmallest);
    EXPECT_EQ(fits[0].overrun.device, "CPU");
    EXPECT_EQ(fits[0].overrun.budgetBytes, 1 * kGiB);
    EXPECT_GT(fits[0].overrun.neededBytes, 1 * kGiB);
    // An invalid pair is reported, not thrown: q4_0 K with head dim 80.
    const auto bad = largestContextPerKvPair(test::llamaHeadDim80(), s, {}, {64 * kGiB, {}},
                                             {{GgmlType::Q4_0, GgmlType::F16}});
    EXPECT_FALSE(bad[0].fits);
    EXPECT_EQ(bad[0].failure, FitFailure::Refused);
    EXPECT_EQ(bad[0].refusal.code, "settings.block-size-mismatch");
    // Every allowed pair by default.
    EXPECT_EQ(largestContextPerKvPair(test::llama1B(), s, {}, {64 * kGiB, {}}).size(), 81u);
}

TEST(Solvers, BestKvPairDegradesAsTheBudgetShrinks) {
    const ModelInfo model = test::llama3_8B();
    ServerSettings s;
    s.parallelSlots = 1;
    s.contextTokens = 32768;
    const std::uint64_t withF16 = hostTotal(model, s, 32768, GgmlType::F16, GgmlType::F16);
    const std::uint64_t withQ8 = hostTotal(model, s, 32768, GgmlType::Q8_0, GgmlType::Q8_0);
    const ContextFit roomy = bestKvPairForContext(model, s, {}, {withF16 + kMiB, {}});
    ASSERT_TRUE(roomy.fits);
    EXPECT_EQ(roomy.typeK, GgmlType::F16);
    EXPECT_EQ(roomy.typeV, GgmlType::F16);
    const ContextFit tight = bestKvPairForContext(model, s, {}, {withQ8 + kMiB, {}});
    ASSERT_TRUE(tight.fits);
    EXPECT_LE(tight.totalBytes, withQ8 + kMiB);
    EXPECT_NE(tight.typeV, GgmlType::F16);
    const ContextFit none = bestKvPairForContext(model, s, {}, {1 * kGiB, {}});
    EXPECT_FALSE(none.fits);
    EXPECT_EQ(none.failure, FitFailure::OverBudget);
    EXPECT_EQ(none.overrun.budgetBytes, 1 * kGiB);
}

TEST(Solvers, MostGpuLayersFillsTheGpuBudget) {
    const ModelInfo model = test::llama3_8B(GgmlType::Q8_0);
    ServerSettings s;
    s.parallelSlots = 1;
    s.contextTokens = 8192;
    const std::vector<GpuDevice> gpus = {{"CUDA0", 6 * kGiB, Backend::Cuda, false, std::nullopt}};
    const GpuLayerFit fit = mostGpuLayers(model, s, gpus, {0, {6 * kGiB}});
    ASSERT_TRUE(fit.fits);
    EXPECT_GT(fit.gpuLayers, 0);
    EXPECT_LT(fit.gpuLayers, 33);
    ServerSettings more = s;
    more.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(fit.gpuLayers) + 1);
    EXPECT_GT(estimateMemory(model, more, gpus)->devices[1].bytes.totalBytes(), 6 * kGiB);
    EXPECT_FALSE(mostGpuLayers(model, s, {}, {}).fits);
    EXPECT_TRUE(mostGpuLayers(model, s, gpus, {0, {64 * kGiB}}).gpuLayers == 33);
}

} // namespace
} // namespace llamafit

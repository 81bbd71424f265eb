// The best -ts: llama-1B (f16, 16 blocks + a 501 MiB output layer, tied to the embeddings) over two
// RPC servers. llama.cpp's default split follows the free memory and puts the output layer on the
// last device on top of its share, so that device fills first; the solver moves layers off it.
#include "core/common/units.h"
#include "core/sizing/estimator.h"
#include "core/sizing/rpcdevices.h"
#include "core/sizing/splitsolver.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr const char* kSplitSolverFirst = "127.0.0.1:50052";
constexpr const char* kSplitSolverSecond = "127.0.0.1:50053";

ServerSettings twoServers() {
    ServerSettings settings;
    settings.parallelSlots = 1;
    settings.gpuLayers = GpuLayers::all();
    settings.rpcServers = {kSplitSolverFirst, kSplitSolverSecond};
    return settings;
}

TEST(SplitSolver, MovesLayersOffTheDeviceThatHoldsTheOutputLayer) {
    const SizingModel model = prepareModel(test::llama1B());
    const std::vector<GpuDevice> gpus{rpcDevice(kSplitSolverFirst, 1800 * kMiB),
                                      rpcDevice(kSplitSolverSecond, 1800 * kMiB)};
    const MemoryBudget budget{0, {1800 * kMiB, 1800 * kMiB}};
    const SplitFit fit = bestTensorSplit(model, twoServers(), gpus, budget);
    ASSERT_TRUE(fit.fits);
    ASSERT_TRUE(fit.defaultSplitContextTokens.has_value());
    EXPECT_GT(fit.contextTokens, *fit.defaultSplitContextTokens);
    ASSERT_EQ(fit.tensorSplit.size(), 2u);
    EXPECT_EQ(fit.tensorSplit[0] + fit.tensorSplit[1], 17.0); // 16 blocks + the output layer
    EXPECT_GT(fit.tensorSplit[0], fit.tensorSplit[1]);        // the first server takes more blocks

    // The answer is what it says: with that -ts and -c every server fits, and 256 more does not.
    ServerSettings chosen = twoServers();
    chosen.tensorSplit = fit.tensorSplit;
    chosen.contextTokens = fit.contextTokens;
    const auto estimate = estimateMemory(model, chosen, gpus);
    ASSERT_TRUE(estimate.ok());
    EXPECT_TRUE(fitsBudget(*estimate, budget));
    EXPECT_EQ(estimate->totals.totalBytes(), fit.totalBytes);
}

TEST(SplitSolver, NeedsTwoDevicesAndRoomForTheSmallestContext) {
    const SizingModel model = prepareModel(test::llama1B());
    EXPECT_FALSE(bestTensorSplit(model, twoServers(), {rpcDevice(kSplitSolverFirst, 8192 * kMiB)}, {}).fits);
    const std::vector<GpuDevice> tiny{rpcDevice(kSplitSolverFirst, 256 * kMiB),
                                      rpcDevice(kSplitSolverSecond, 256 * kMiB)};
    const SplitFit none =
        bestTensorSplit(model, twoServers(), tiny, MemoryBudget{0, {256 * kMiB, 256 * kMiB}});
    EXPECT_FALSE(none.fits);
    EXPECT_FALSE(none.defaultSplitContextTokens.has_value());
}

} // namespace
} // namespace llamafit

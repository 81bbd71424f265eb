// SweepGrid: every cell is estimateMemory() of its context and pair; a refused pair keeps the
// estimator's error in every cell; the CLI's default rows are powers of two.
#include "core/sizing/contextsweep.h"
#include "core/sizing/estimator.h"
#include "core/sizing/rpcdevices.h"
#include "core/sizing/sweepgrid.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ServerSettings oneSlot() {
    ServerSettings settings;
    settings.parallelSlots = 1;
    return settings;
}

TEST(SweepGrid, EachCellIsTheEstimateOfItsContextAndPair) {
    const ModelInfo model = test::llama1B();
    const ServerSettings settings = oneSlot();
    const std::vector<std::uint32_t> contexts{4096, 8192, 16384};
    const SweepGrid grid = estimateSweepGrid(prepareModel(model), settings, {}, contexts, defaultKvPairs());
    ASSERT_EQ(grid.cells.size(), defaultKvPairs().size());
    for (std::size_t p = 0; p < grid.pairs.size(); ++p) {
        ASSERT_EQ(grid.cells[p].size(), contexts.size());
        for (std::size_t c = 0; c < contexts.size(); ++c) {
            ServerSettings trial = settings;
            trial.contextTokens = contexts[c];
            trial.cacheTypeK = grid.pairs[p].first;
            trial.cacheTypeV = grid.pairs[p].second;
            const Result<MemoryEstimate> expected = estimateMemory(model, trial);
            ASSERT_TRUE(expected.ok() && grid.at(c, p).ok()) << kvPairName(grid.pairs[p]);
            EXPECT_EQ(*grid.at(c, p), *expected) << kvPairName(grid.pairs[p]) << " at " << contexts[c];
        }
    }
    // More context, more KV; a smaller type, less KV.
    EXPECT_LT(grid.at(0, 0)->totals.kvBytes, grid.at(2, 0)->totals.kvBytes);
    EXPECT_LT(grid.at(1, 1)->totals.kvBytes, grid.at(1, 0)->totals.kvBytes);
}

TEST(SweepGrid, ARefusedPairKeepsTheEstimatorsErrorInEveryCell) {
    const SweepGrid grid =
        estimateSweepGrid(prepareModel(test::llamaHeadDim80()), oneSlot(), {}, {4096, 8192},
                          {{GgmlType::F16, GgmlType::F16}, {GgmlType::Q4_0, GgmlType::Q4_0}});
    EXPECT_TRUE(grid.at(0, 0).ok());
    for (std::size_t c = 0; c < grid.contexts.size(); ++c) {
        ASSERT_FALSE(grid.at(c, 1).ok());
        EXPECT_EQ(grid.at(c, 1).error().code, "settings.block-size-mismatch");
        EXPECT_EQ(grid.at(c, 1).error().settings.front(), Setting::CacheTypeK);
    }
}

TEST(SweepGrid, DefaultRowsArePowersOfTwoFrom4096UpToTheTrainingContext) {
    EXPECT_EQ(powerOfTwoContexts(131072),
              (std::vector<std::uint32_t>{4096, 8192, 16384, 32768, 65536, 131072}));
    EXPECT_EQ(powerOfTwoContexts(40000), (std::vector<std::uint32_t>{4096, 8192, 16384, 32768}));
    EXPECT_EQ(powerOfTwoContexts(2048), std::vector<std::uint32_t>{2048});
    EXPECT_EQ(powerOfTwoContexts(0), std::vector<std::uint32_t>{4096});
}

TEST(ContextSweep, SeriesAreTheGridsHostTotalsAtTheSliderStops) {
    const SizingModel model = prepareModel(test::llama1B());
    const ServerSettings settings = oneSlot();
    const std::vector<KvPair> pairs = defaultKvPairs();
    const SweepData data = computeSweep(model, settings, {}, MemoryBudget{}, pairs);
    EXPECT_FALSE(data.onGpu);
    EXPECT_EQ(data.deviceName, "CPU");
    const std::vector<std::uint32_t> stops = sweepContexts(model.model().trainingContext);
    const SweepGrid grid = estimateSweepGrid(model, settings, {}, stops, pairs);
    ASSERT_EQ(data.series.size(), pairs.size());
    for (std::size_t p = 0; p < pairs.size(); ++p) {
        const SweepSeries& series = data.series[p];
        ASSERT_FALSE(series.refused) << series.refusal.message;
        ASSERT_EQ(series.contexts, stops);
        for (std::size_t c = 0; c < stops.size(); ++c) {
            EXPECT_EQ(series.deviceBytes[c], grid.at(c, p)->devices.front().bytes.totalBytes());
        }
    }
}

// Two GPUs of the same size, the layers split 1:3 and then 3:1 (-ts): the chart follows the GPU
// that holds the larger share, whichever comes first in llama.cpp's order (an RPC host in front
// of the local GPU with a small share is the usual case).
TEST(ContextSweep, ChartsTheGpuWithTheLeastRoomNotTheFirst) {
    const SizingModel model = prepareModel(test::llama1B());
    GpuDevice local;
    local.name = "Vulkan0";
    local.memoryBytes = 8ULL << 30;
    local.backend = Backend::Vulkan;
    const std::vector<GpuDevice> gpus{rpcDevice("127.0.0.1:50052", 8ULL << 30), local};
    MemoryBudget budget;
    budget.gpuBytes = {7ULL << 30, 7ULL << 30};
    ServerSettings settings = oneSlot();
    settings.rpcServers = {"127.0.0.1:50052"};
    settings.tensorSplit = {1, 3};
    const SweepData moreOnLocal = computeSweep(model, settings, gpus, budget, defaultKvPairs());
    ASSERT_TRUE(moreOnLocal.onGpu);
    EXPECT_EQ(moreOnLocal.deviceName, "Vulkan0");
    settings.tensorSplit = {3, 1};
    const SweepData moreOnRpc = computeSweep(model, settings, gpus, budget, defaultKvPairs());
    EXPECT_EQ(moreOnRpc.deviceName, "RPC0[127.0.0.1:50052]");
    // The series are that device's totals.
    settings.tensorSplit = {1, 3};
    ASSERT_FALSE(moreOnLocal.series.empty());
    const SweepSeries& series = moreOnLocal.series.front();
    ASSERT_FALSE(series.refused) << series.refusal.message;
    const SweepGrid grid = estimateSweepGrid(model, settings, gpus, {series.contexts.front()}, {series.pair});
    std::uint64_t vulkanBytes = 0;
    for (const DeviceEstimate& device : grid.at(0, 0)->devices) {
        vulkanBytes = device.name == "Vulkan0" ? device.bytes.totalBytes() : vulkanBytes;
    }
    EXPECT_GT(vulkanBytes, 0U);
    EXPECT_EQ(series.deviceBytes.front(), vulkanBytes);
}

} // namespace
} // namespace llamafit

// SweepGrid: every cell is estimateMemory() of its context and pair; a refused pair keeps the
// estimator's error in every cell; the CLI's default rows are powers of two.
#include "core/sizing/contextsweep.h"
#include "core/sizing/estimator.h"
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

} // namespace
} // namespace llamafit

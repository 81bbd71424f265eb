// Every context x K/V pair estimated; see sweepgrid.h.
#include "core/sizing/sweepgrid.h"

#include "core/sizing/estimator.h"

#include <limits>

namespace llamafit {

SweepGrid estimateSweepGrid(const SizingModel& model, const ServerSettings& settings,
                            const std::vector<GpuDevice>& gpus, std::vector<std::uint32_t> contexts,
                            std::vector<KvPair> pairs) {
    SweepGrid grid{std::move(contexts), std::move(pairs), {}};
    grid.cells.reserve(grid.pairs.size());
    for (const KvPair& pair : grid.pairs) {
        std::vector<Result<MemoryEstimate>>& column = grid.cells.emplace_back();
        column.reserve(grid.contexts.size());
        ServerSettings trial = settings;
        trial.cacheTypeK = pair.first;
        trial.cacheTypeV = pair.second;
        for (std::uint32_t contextTokens : grid.contexts) {
            trial.contextTokens = contextTokens;
            column.push_back(estimateMemory(model, trial, gpus));
        }
    }
    return grid;
}

std::vector<std::uint32_t> powerOfTwoContexts(std::uint64_t trainingContext) {
    std::vector<std::uint32_t> contexts;
    for (std::uint64_t c = 4096; c <= trainingContext && c <= std::numeric_limits<std::uint32_t>::max();
         c *= 2) {
        contexts.push_back(static_cast<std::uint32_t>(c));
    }
    if (contexts.empty()) {
        contexts.push_back(trainingContext > 0 ? static_cast<std::uint32_t>(trainingContext) : 4096);
    }
    return contexts;
}

} // namespace llamafit

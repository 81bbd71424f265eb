#pragma once
// SweepGrid: the estimate of every context x K/V cache type pair for one model and its other
// settings -- the grid behind `llamafit-cli sweep` (a table, CSV or JSON of it) and the GUI's
// context sweep chart (one line per pair), so both show the same numbers by construction. A
// pair llama-server refuses for the model keeps the estimator's error in its cells.
// Pure value type and functions, no I/O; any thread. Units: tokens.

#include "core/common/result.h"
#include "core/sizing/kvpairs.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizingmodel.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llamafit {

struct SweepGrid {
    std::vector<std::uint32_t> contexts; // the -c of each row, as given
    std::vector<KvPair> pairs;           // the -ctk/-ctv of each column, as given
    // cells[pair][context]: estimateMemory() with settings.contextTokens, cacheTypeK and
    // cacheTypeV replaced, everything else as the settings say.
    std::vector<std::vector<Result<MemoryEstimate>>> cells;

    const Result<MemoryEstimate>& at(std::size_t contextIndex, std::size_t pairIndex) const {
        return cells[pairIndex][contextIndex];
    }
};

SweepGrid estimateSweepGrid(const SizingModel& model, const ServerSettings& settings,
                            const std::vector<GpuDevice>& gpus, std::vector<std::uint32_t> contexts,
                            std::vector<KvPair> pairs);

// The powers of two from 4096 up to the training context (at least one row: the training
// context, or 4096 when the model does not say): the CLI's default rows.
std::vector<std::uint32_t> powerOfTwoContexts(std::uint64_t trainingContext);

} // namespace llamafit

#pragma once
// The sizing engine's plans, compiled (computeplancache.h): each reserve's graph built and split at
// an anchor's cells, with every tensor's size and shape as the cache grows, over the range where
// the graph splits as at the anchor; and the -fa auto probe's answer over such a range.
// Internal to core/sizing (computeengine.cpp).

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/computeplancache.h"
#include "core/sizing/graph/graphparams.h"
#include "core/sizing/scheduler/graphsplit.h"
#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace llamafit {

// What every engine run needs: the backends in llama.cpp's order, the graph parameters at the
// estimate's cells, and the scheduler's options (computeengine.cpp engineSetup).
struct EngineSetup {
    std::vector<scheduler::SchedulerBackend> backends;
    graph::GraphParams params;
    scheduler::SchedulerOptions options;
};

// Each reserve's graph at `cells` (the non-SWA cache's cells per stream; the setup's own where
// there is no such cache), split by the scheduler; the builder's error where a graph cannot be
// built, the scheduler's (sizing.unschedulable) where ggml would abort.
Result<std::vector<scheduler::ScheduledGraph>>
scheduleReserves(const ModelInfo& model, const EngineSetup& setup,
                 const std::vector<graph::ReserveShape>& reserves, bool fitMeasurement, std::uint32_t cells);

// The compute buffers' plan anchored at the setup's cells.
std::shared_ptr<const CompiledPlan>
compileComputeBuffers(const ModelInfo& model, const EngineSetup& setup,
                      const std::vector<graph::ReserveShape>& reserves, bool fitMeasurement,
                      const std::vector<scheduler::BufferType>& bufferTypes);

// -fa auto's probe (one reserve, `reserve`) at the setup's cells and, `overCells`, over the range
// where the probe graph splits as there.
std::shared_ptr<const CompiledPlan> compileFlashAttentionProbe(const ModelInfo& model,
                                                               const EngineSetup& setup,
                                                               const graph::ReserveShape& reserve,
                                                               bool overCells);

} // namespace llamafit

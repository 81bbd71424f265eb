#pragma once
// buildModelGraph: the graph llama.cpp builds for a model at one reserve, from the builder of its
// architecture (models/). The sizing engine's scheduler and allocator take it from there.
// Error code: sizing.no-graph (no builder for the architecture yet: the caller falls back to the
// closed forms and says so).

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/graph/computegraph.h"
#include "core/sizing/graph/graphparams.h"

namespace llamafit::graph {

bool hasGraphBuilder(const ModelInfo& model);
Result<ComputeGraph> buildModelGraph(const ModelInfo& model, const GraphParams& params);

} // namespace llamafit::graph

#pragma once
// ggml_metal_device_supports_op and ggml_graph_optimize (the Metal concurrency reorder),
// restated over a ComputeGraph for metalbackend.cpp, which assembles the Metal SchedulerBackend.
// Internal to core/sizing/scheduler.

#include "core/sizing/graph/computegraph.h"
#include "core/sizing/scheduler/metalbackend.h"

#include <vector>

namespace llamafit::scheduler {

bool metalSupportsOp(const MetalDevice& device, const graph::ComputeGraph& graph, graph::TensorId id);

// Reorders one split's nodes (`nodes`, views included) as ggml-metal-common.cpp
// ggml_graph_optimize does.
void metalOptimizeGraph(const graph::ComputeGraph& graph, std::vector<graph::TensorId>& nodes);

} // namespace llamafit::scheduler

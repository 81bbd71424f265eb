#pragma once
// ggml_backend_vk_device_supports_op and ggml_vk_graph_optimize, restated over a ComputeGraph for
// vulkanbackend.cpp (which assembles the Vulkan SchedulerBackend). Internal to core/sizing/scheduler.

#include "core/sizing/graph/computegraph.h"
#include "core/sizing/scheduler/vulkanbackend.h"

#include <vector>

namespace llamafit::scheduler {

bool vulkanSupportsOp(const VulkanDevice& device, const graph::ComputeGraph& graph, graph::TensorId id);

// Reorders one split's nodes (`nodes`, views included) as ggml_vk_graph_optimize does.
void vulkanOptimizeGraph(const graph::ComputeGraph& graph, std::vector<graph::TensorId>& nodes);

} // namespace llamafit::scheduler

// The sizing engine's plans, compiled; see computeplancompiler.h.
#include "core/sizing/computeplancompiler.h"

#include "core/sizing/allocator/cellsteps.h"
#include "core/sizing/allocator/graphallocator.h"
#include "core/sizing/graph/llmgraph.h"
#include "core/sizing/graph/modelgraph.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace llamafit {
namespace {

// The largest cache a plan reaches for: 2^18 cells per stream, the sweep chart's largest context;
// a larger one gets a plan of its own.
constexpr std::int64_t kPlanMaxSteps = (std::int64_t{1} << 18) / allocator::kCellsPerStep;
// How many halvings look for the step where the split changes: each builds and splits the graph
// again, so a plan whose far end splits differently stops within an eighth of the distance, and
// the contexts past that get plans of their own.
constexpr int kMaxBisections = 3;

// The same graph, split the same way: the tensors with their ops, types, sources, views, flags and
// buffers, the nodes and leafs in order and each one's backend. Shapes may differ.
bool sameStructure(const scheduler::AllocationPlan& a, const scheduler::AllocationPlan& b) {
    if (a.nodes != b.nodes || a.nodeBackends != b.nodeBackends || a.leafs != b.leafs ||
        a.leafBackends != b.leafBackends || a.graph.tensors.size() != b.graph.tensors.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.graph.tensors.size(); ++i) {
        const graph::Tensor& x = a.graph.tensors[i];
        const graph::Tensor& y = b.graph.tensors[i];
        if (x.op != y.op || x.type != y.type || x.flags != y.flags || x.sources != y.sources ||
            x.viewSource != y.viewSource || x.buffer != y.buffer) {
            return false;
        }
    }
    return true;
}

bool sameStructure(const std::vector<scheduler::ScheduledGraph>& a,
                   const std::vector<scheduler::ScheduledGraph>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t r = 0; r < a.size(); ++r) {
        if (!sameStructure(a[r].plan, b[r].plan)) {
            return false;
        }
    }
    return true;
}

// The farthest step from the anchor, towards `far`, where `holds` is still true, given that it
// holds at `near` (between 0 and far). The answers of the scheduler that read the cache's size
// compare a count or a size that grows with the cache against a fixed one (a device's buffer
// limits in supports_op, a kernel's threshold on n_kv): each changes once at most as the cache
// grows, so where the far end agrees with the anchor every step between does, and elsewhere the
// last agreeing step is looked for by a few halvings (kMaxBisections), keeping the nearest one.
template <typename Holds>
std::int64_t lastHoldingStep(std::int64_t near, std::int64_t far, const Holds& holds) {
    if (far == near || holds(far)) {
        return far;
    }
    for (int halving = 0; halving < kMaxBisections && (far - near > 1 || near - far > 1); ++halving) {
        const std::int64_t middle = near + (far - near) / 2;
        (holds(middle) ? near : far) = middle;
    }
    return near;
}

// The anchor's cache size is a whole number of steps from 256 cells up to kPlanMaxSteps.
void keepPlannedCells(CompiledPlan& plan) {
    const std::int64_t anchorStep = plan.anchorCells / allocator::kCellsPerStep;
    if (plan.anchorCells % allocator::kCellsPerStep != 0 || anchorStep > kPlanMaxSteps) {
        plan.valid.keepAnchorOnly();
    }
    plan.valid.keepOnly(1 - anchorStep, kPlanMaxSteps - anchorStep);
}

// -fa auto's answer from one split of the probe graph: flash attention stays on unless a
// FLASH_ATTN_EXT node runs on another backend than its layer.
bool keepsFlashAttention(const graph::ComputeGraph& built, const scheduler::ScheduledGraph& scheduled,
                         const std::vector<int>& layerBackends) {
    for (const graph::TensorId id : built.nodes) {
        const graph::Tensor& node = built[id];
        // Each flash attention node's layer, from its name as resolve_fused_ops reads it.
        if (node.op != graph::GgmlOp::FlashAttnExt || node.name.rfind(graph::kFlashAttentionName, 0) != 0) {
            continue;
        }
        const std::size_t layer = std::stoul(node.name.substr(graph::kFlashAttentionName.size()));
        if (layer < layerBackends.size() && scheduled.backendOf[id] != layerBackends[layer]) {
            return false;
        }
    }
    return true;
}

} // namespace

Result<std::vector<scheduler::ScheduledGraph>>
scheduleReserves(const ModelInfo& model, const EngineSetup& setup,
                 const std::vector<graph::ReserveShape>& reserves, bool fitMeasurement, std::uint32_t cells) {
    graph::GraphParams params = setup.params;
    if (params.kvCells != 0) {
        params.kvCells = cells;
    }
    std::vector<scheduler::ScheduledGraph> scheduled;
    for (const graph::ReserveShape& reserve : reserves) {
        params.reserve = reserve;
        Result<graph::ComputeGraph> built = graph::buildModelGraph(model, params);
        if (!built.ok()) {
            return built.error();
        }
        if (fitMeasurement) {
            // ggml_backend_sched_reserve_size resets the scheduler before it splits the graph
            // (ggml-backend.cpp ggml_backend_sched_reset), and with it every backend the graph's
            // callback assigned while llama.cpp built it (ggml_backend_sched_set_tensor_backend:
            // llama-context.cpp graph_get_cb's norm pins): fit measures an unpinned graph.
            for (graph::Tensor& tensor : built->tensors) {
                tensor.pinnedBackend = -1;
            }
        }
        Result<scheduler::ScheduledGraph> split =
            scheduler::splitGraph(std::move(*built), setup.backends, setup.options);
        if (!split.ok()) {
            return split.error();
        }
        scheduled.push_back(std::move(*split));
    }
    return scheduled;
}

// The compute buffers' plan as the cache grows (computeplancache.h). The graph at the anchor's
// cells and one step later gives each tensor's size and shape as affine functions of the cells
// (the same graph split the same way at both, else the plan holds at the anchor only). The
// scheduler is then checked at the ends of the range the plan may reach, and each check there
// also lays the plan out and compares its bytes with the allocator's over the graph built there,
// so a size that did not grow linearly would show too.
std::shared_ptr<const CompiledPlan>
compileComputeBuffers(const ModelInfo& model, const EngineSetup& setup,
                      const std::vector<graph::ReserveShape>& reserves, bool fitMeasurement,
                      const std::vector<scheduler::BufferType>& bufferTypes) {
    auto plan = std::make_shared<CompiledPlan>();
    plan->anchorCells = setup.params.kvCells;
    plan->bufferTypes = bufferTypes;
    auto anchor = scheduleReserves(model, setup, reserves, fitMeasurement, plan->anchorCells);
    if (!anchor) {
        plan->covered = false;
        plan->refusal = anchor.error();
        plan->valid.keepAnchorOnly();
        return plan;
    }
    std::optional<std::vector<scheduler::ScheduledGraph>> next;
    if (plan->anchorCells != 0) { // else no cache grows with the context: one answer for all
        auto nextStep = scheduleReserves(model, setup, reserves, fitMeasurement,
                                         plan->anchorCells + allocator::kCellsPerStep);
        if (nextStep && sameStructure(*anchor, *nextStep)) {
            next = std::move(*nextStep);
        } else {
            plan->valid.keepAnchorOnly();
        }
        keepPlannedCells(*plan);
    }
    for (std::size_t r = 0; r < anchor->size(); ++r) {
        plan->reserves.push_back(allocator::growingPlan(std::move((*anchor)[r].plan),
                                                        next ? &(*next)[r].plan : nullptr, bufferTypes));
    }
    next.reset();
    const auto holds = [&](std::int64_t steps) {
        const auto cells = static_cast<std::uint32_t>(plan->anchorCells + steps * allocator::kCellsPerStep);
        const auto probe = scheduleReserves(model, setup, reserves, fitMeasurement, cells);
        if (!probe || probe->size() != plan->reserves.size()) {
            return false;
        }
        for (std::size_t r = 0; r < probe->size(); ++r) {
            if (!sameStructure(plan->reserves[r].plan, (*probe)[r].plan)) {
                return false;
            }
            const std::vector<std::uint64_t> built =
                allocator::planComputeBuffers((*probe)[r].plan, bufferTypes);
            const allocator::ComputeBuffersOverCells laidOut =
                allocator::planComputeBuffersAt(plan->reserves[r], steps, bufferTypes);
            for (std::size_t b = 0; b < built.size(); ++b) {
                if (static_cast<std::int64_t>(built[b]) != laidOut.bytes[b].now) {
                    return false;
                }
            }
        }
        return true;
    };
    // Step 1 was built above: the plan holds there wherever it holds beyond the anchor.
    const std::int64_t hi =
        lastHoldingStep(std::min<std::int64_t>(1, plan->valid.hi()), plan->valid.hi(), holds);
    const std::int64_t lo = lastHoldingStep(0, plan->valid.lo(), holds);
    plan->valid.keepOnly(lo, hi);
    return plan;
}

// The probe's answer at the setup's cells and, `overCells`, as the cache grows: it holds wherever
// the probe graph splits as at the anchor, checked at the ends as for the compute buffers.
std::shared_ptr<const CompiledPlan> compileFlashAttentionProbe(const ModelInfo& model,
                                                               const EngineSetup& setup,
                                                               const graph::ReserveShape& reserve,
                                                               bool overCells) {
    auto compiled = std::make_shared<CompiledPlan>();
    CompiledPlan& plan = *compiled;
    plan.anchorCells = setup.params.kvCells;
    const auto split =
        [&](std::uint32_t cells) -> std::optional<std::pair<graph::ComputeGraph, scheduler::ScheduledGraph>> {
        graph::GraphParams params = setup.params;
        params.reserve = reserve;
        if (params.kvCells != 0) {
            params.kvCells = cells;
        }
        Result<graph::ComputeGraph> built = graph::buildModelGraph(model, params);
        if (!built.ok()) {
            return std::nullopt;
        }
        Result<scheduler::ScheduledGraph> scheduled =
            scheduler::splitGraph(*built, setup.backends, setup.options);
        if (!scheduled.ok()) {
            return std::nullopt;
        }
        return std::pair{std::move(*built), std::move(*scheduled)};
    };
    const auto anchor = split(plan.anchorCells);
    if (!anchor) {
        plan.covered = false;
        plan.valid.keepAnchorOnly();
        return compiled;
    }
    plan.keepsFlashAttention = keepsFlashAttention(anchor->first, anchor->second, setup.params.layerBackends);
    if (plan.anchorCells == 0) {
        return compiled;
    }
    if (!overCells) {
        plan.valid.keepAnchorOnly();
        return compiled;
    }
    keepPlannedCells(plan);
    const auto holds = [&](std::int64_t steps) {
        const auto probe =
            split(static_cast<std::uint32_t>(plan.anchorCells + steps * allocator::kCellsPerStep));
        return probe && sameStructure(anchor->second.plan, probe->second.plan);
    };
    const std::int64_t hi = lastHoldingStep(0, plan.valid.hi(), holds);
    const std::int64_t lo = lastHoldingStep(0, plan.valid.lo(), holds);
    plan.valid.keepOnly(lo, hi);
    return compiled;
}

} // namespace llamafit

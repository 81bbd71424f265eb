// ggml's graph allocator; see graphallocator.h. Restates ggml/src/ggml-alloc.c
// (ggml_gallocr_new_n, ggml_gallocr_alloc_graph_impl, ggml_gallocr_allocate_node,
// ggml_gallocr_free_node, ggml_gallocr_free_extra_space, ggml_gallocr_get_buffer_size).
#include "core/sizing/allocator/graphallocator.h"

#include "core/sizing/allocator/dynamicallocator.h"

#include <memory>

namespace llamafit::allocator {
namespace {

using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;

struct TensorState {
    int children = 0;
    int views = 0;
    int buffer = -1;
    DynamicAllocator::Address address;
    bool allocated = false; // ggml_gallocr_is_own: allocated by this allocator, not yet freed
};

class GraphAllocator {
  public:
    // `growth`, where given, is how `plan`'s tensors grow with the cells, laid out at `steps` from
    // its anchor; without it the plan's own sizes.
    GraphAllocator(const scheduler::AllocationPlan& plan, const GrowingPlan* growth, std::int64_t steps,
                   const std::vector<scheduler::BufferType>& types)
        : m_plan(plan), m_graph(plan.graph), m_growth(growth), m_steps(steps), m_types(types),
          m_state(plan.graph.tensors.size()) {
        // ggml_gallocr_new_n: buffers of one buffer type share one allocator.
        for (std::size_t b = 0; b < types.size(); ++b) {
            std::size_t owner = b;
            for (std::size_t earlier = 0; earlier < b; ++earlier) {
                if (types[earlier].name == types[b].name) {
                    owner = earlier;
                    break;
                }
            }
            m_owner.push_back(owner);
            m_allocators.push_back(owner == b ? std::make_shared<DynamicAllocator>(
                                                    types[b].alignment, types[b].maxSize, m_choices)
                                              : m_allocators[owner]);
        }
    }

    ComputeBuffersOverCells run();

  private:
    // ggml_gallocr_is_allocated: data set outside the allocator (a weight, a cache, or a view of
    // one), or allocated by it.
    bool isAllocated(TensorId id) const {
        const Tensor& tensor = m_graph[id];
        if (tensor.buffer != graph::kNoBuffer) {
            return true;
        }
        if (tensor.isView() && m_graph[tensor.viewSource].buffer != graph::kNoBuffer) {
            return true; // ggml sets a view's data from its source's when it is made
        }
        return m_state[id].allocated;
    }
    bool isOutput(TensorId id) const {
        const Tensor& tensor = m_graph[id];
        return tensor.hasFlag(graph::kFlagOutput) ||
               (tensor.isView() && m_graph[tensor.viewSource].hasFlag(graph::kFlagOutput));
    }
    AffineBytes allocSize(int buffer, TensorId id) const {
        if (m_growth == nullptr) {
            return {
                static_cast<std::int64_t>(m_types[static_cast<std::size_t>(buffer)].allocSizeOf(m_graph, id)),
                0};
        }
        const AffineBytes fromAnchor = m_growth->allocBytes[static_cast<std::size_t>(buffer)][id];
        return {fromAnchor.at(m_steps), fromAnchor.perStep};
    }
    bool sameLayout(TensorId node, TensorId parent);
    void allocate(TensorId id, int buffer);
    void release(TensorId id);

    const scheduler::AllocationPlan& m_plan;
    const graph::ComputeGraph& m_graph;
    const GrowingPlan* m_growth;
    std::int64_t m_steps;
    const std::vector<scheduler::BufferType>& m_types;
    StepRange m_choices;
    std::vector<TensorState> m_state;
    std::vector<std::size_t> m_owner;
    std::vector<std::shared_ptr<DynamicAllocator>> m_allocators;
};

// ggml_are_same_layout of a node and its parent at the steps laid out, keeping the steps where
// the answer stays: each dimension's and stride's difference is affine in the steps, so equal
// ones stay equal where they grow alike, and apart ones stay apart up to where they would meet.
bool GraphAllocator::sameLayout(TensorId node, TensorId parent) {
    const graph::Tensor& a = m_graph[node];
    const graph::Tensor& b = m_graph[parent];
    if (m_growth == nullptr) {
        return a.sameLayout(b);
    }
    if (a.type != b.type) {
        return false;
    }
    bool same = true;
    for (std::size_t d = 0; d < a.ne.size(); ++d) {
        const std::int64_t neSlope = m_growth->neSlope[node][d] - m_growth->neSlope[parent][d];
        const std::int64_t nbSlope = m_growth->nbSlope[node][d] - m_growth->nbSlope[parent][d];
        const AffineBytes ne{a.ne[d] - b.ne[d] + neSlope * m_steps, neSlope};
        const AffineBytes nb{static_cast<std::int64_t>(a.nb[d] - b.nb[d]) + nbSlope * m_steps, nbSlope};
        same = m_choices.equal(ne, {}) && same;
        same = m_choices.equal(nb, {}) && same;
    }
    return same;
}

// ggml_gallocr_allocate_node.
void GraphAllocator::allocate(TensorId id, int buffer) {
    const Tensor& node = m_graph[id];
    TensorState& state = m_state[id];
    if (isAllocated(id) || node.isView()) {
        return;
    }
    state.allocated = true;
    if (graph::canRunInPlace(node.op)) {
        for (const TensorId parent : node.sources) {
            if (parent == kNoTensor) {
                continue;
            }
            // Only memory of its own (a view never is: its node is never marked allocated, so
            // ggml's "reusing view parent" branch is not reached), not an output's, of the
            // same layout, read by no one else.
            TensorState& parentState = m_state[parent];
            if (!parentState.allocated || isOutput(parent) || !sameLayout(id, parent)) {
                continue;
            }
            if (parentState.children != 1 || parentState.views != 0) {
                continue;
            }
            state.buffer = parentState.buffer;
            state.address = parentState.address;
            parentState.allocated = false;
            // ggml_gallocr_free_extra_space: a smaller result gives back the parent's tail.
            DynamicAllocator& allocator = *m_allocators[static_cast<std::size_t>(parentState.buffer)];
            const AffineBytes parentBytes = allocator.aligned(allocSize(parentState.buffer, parent));
            const AffineBytes nodeBytes = allocator.aligned(allocSize(state.buffer, id));
            if (m_choices.less(nodeBytes, parentBytes)) {
                DynamicAllocator::Address tail = parentState.address;
                tail.offset += nodeBytes;
                allocator.release(tail, parentBytes - nodeBytes);
            }
            return;
        }
    }
    state.buffer = buffer;
    state.address = m_allocators[static_cast<std::size_t>(buffer)]->allocate(allocSize(buffer, id));
}

// ggml_gallocr_free_node: outputs are never freed.
void GraphAllocator::release(TensorId id) {
    if (m_graph[id].hasFlag(graph::kFlagOutput)) {
        return;
    }
    TensorState& state = m_state[id];
    m_allocators[static_cast<std::size_t>(state.buffer)]->release(state.address, allocSize(state.buffer, id));
    state.allocated = false;
}

ComputeBuffersOverCells GraphAllocator::run() {
    // Leafs first: the graph inputs, and the pipeline copies the scheduler listed as leafs.
    for (std::size_t i = 0; i < m_plan.leafs.size(); ++i) {
        allocate(m_plan.leafs[i], m_plan.leafBackends[i]);
    }
    // Count readers and views; allocate the inputs before any node so nothing overwrites them.
    for (std::size_t i = 0; i < m_plan.nodes.size(); ++i) {
        const TensorId id = m_plan.nodes[i];
        const Tensor& node = m_graph[id];
        // A view with no op is the scheduler's dependency marker: it holds its source, it is not a view use.
        if (node.isView() && node.op != graph::GgmlOp::None) {
            ++m_state[node.viewSource].views;
        }
        if (node.hasFlag(graph::kFlagInput)) {
            allocate(id, m_plan.nodeBackends[i]);
        }
        for (const TensorId source : node.sources) {
            if (source == kNoTensor) {
                continue;
            }
            ++m_state[source].children;
            if (m_graph[source].hasFlag(graph::kFlagInput)) {
                allocate(source, m_plan.nodeBackends[i]);
            }
        }
    }
    for (std::size_t i = 0; i < m_plan.nodes.size(); ++i) {
        const TensorId id = m_plan.nodes[i];
        const int buffer = m_plan.nodeBackends[i];
        const Tensor& node = m_graph[id];
        for (const TensorId parent : node.sources) {
            if (parent != kNoTensor) {
                allocate(parent, buffer);
            }
        }
        allocate(id, buffer);
        for (const TensorId parent : node.sources) {
            if (parent == kNoTensor) {
                continue;
            }
            TensorState& parentState = m_state[parent];
            --parentState.children;
            if (parentState.children != 0 || parentState.views != 0) {
                continue;
            }
            if (m_graph[parent].isView()) {
                const TensorId viewSource = m_graph[parent].viewSource;
                TensorState& sourceState = m_state[viewSource];
                --sourceState.views;
                if (sourceState.views == 0 && sourceState.children == 0 && sourceState.allocated) {
                    release(viewSource);
                }
            } else if (parentState.allocated) {
                release(parent);
            }
        }
    }
    ComputeBuffersOverCells out;
    out.bytes.resize(m_types.size());
    for (std::size_t b = 0; b < m_types.size(); ++b) {
        if (m_owner[b] == b) {
            AffineBytes& bytes = out.bytes[b];
            bytes = m_allocators[b]->reservedBytes();
            if (m_choices.less({}, bytes)) {
                bytes.now +=
                    static_cast<std::int64_t>(m_types[b].allocBufferPadding * m_allocators[b]->chunkCount());
            }
        }
    }
    out.choices = m_choices;
    return out;
}

} // namespace

std::vector<std::uint64_t> planComputeBuffers(const scheduler::AllocationPlan& plan,
                                              const std::vector<scheduler::BufferType>& bufferTypes) {
    const ComputeBuffersOverCells buffers = GraphAllocator(plan, nullptr, 0, bufferTypes).run();
    std::vector<std::uint64_t> bytes;
    bytes.reserve(buffers.bytes.size());
    for (const AffineBytes& buffer : buffers.bytes) {
        bytes.push_back(static_cast<std::uint64_t>(buffer.now));
    }
    return bytes;
}

GrowingPlan growingPlan(scheduler::AllocationPlan anchor, const scheduler::AllocationPlan* nextStep,
                        const std::vector<scheduler::BufferType>& bufferTypes) {
    GrowingPlan growing;
    const std::size_t tensors = anchor.graph.tensors.size();
    growing.allocBytes.assign(bufferTypes.size(), std::vector<AffineBytes>(tensors));
    growing.neSlope.assign(tensors, {});
    growing.nbSlope.assign(tensors, {});
    for (std::size_t b = 0; b < bufferTypes.size(); ++b) {
        for (TensorId id = 0; id < tensors; ++id) {
            const auto now = static_cast<std::int64_t>(bufferTypes[b].allocSizeOf(anchor.graph, id));
            const std::int64_t next =
                nextStep ? static_cast<std::int64_t>(bufferTypes[b].allocSizeOf(nextStep->graph, id)) : now;
            growing.allocBytes[b][id] = {now, next - now};
        }
    }
    for (TensorId id = 0; nextStep != nullptr && id < tensors; ++id) {
        const Tensor& at = anchor.graph[id];
        const Tensor& next = nextStep->graph[id];
        for (std::size_t d = 0; d < at.ne.size(); ++d) {
            growing.neSlope[id][d] = next.ne[d] - at.ne[d];
            growing.nbSlope[id][d] = static_cast<std::int64_t>(next.nb[d] - at.nb[d]);
        }
    }
    for (Tensor& tensor : anchor.graph.tensors) {
        tensor.name.clear();
        tensor.name.shrink_to_fit();
    }
    growing.plan = std::move(anchor);
    return growing;
}

ComputeBuffersOverCells planComputeBuffersAt(const GrowingPlan& plan, std::int64_t steps,
                                             const std::vector<scheduler::BufferType>& bufferTypes) {
    return GraphAllocator(plan.plan, &plan, steps, bufferTypes).run();
}

} // namespace llamafit::allocator

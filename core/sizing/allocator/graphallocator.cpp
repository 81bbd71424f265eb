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
    GraphAllocator(const scheduler::AllocationPlan& plan, const std::vector<scheduler::BufferType>& types)
        : m_plan(plan), m_graph(plan.graph), m_types(types), m_state(plan.graph.tensors.size()) {
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
            m_allocators.push_back(
                owner == b ? std::make_shared<DynamicAllocator>(types[b].alignment, types[b].maxSize)
                           : m_allocators[owner]);
        }
    }

    std::vector<std::uint64_t> run();

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
    std::uint64_t allocSize(int buffer, TensorId id) const {
        return m_types[static_cast<std::size_t>(buffer)].allocSizeOf(m_graph, id);
    }
    void allocate(TensorId id, int buffer);
    void release(TensorId id);

    const scheduler::AllocationPlan& m_plan;
    const graph::ComputeGraph& m_graph;
    const std::vector<scheduler::BufferType>& m_types;
    std::vector<TensorState> m_state;
    std::vector<std::size_t> m_owner;
    std::vector<std::shared_ptr<DynamicAllocator>> m_allocators;
};

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
            if (!parentState.allocated || isOutput(parent) || !node.sameLayout(m_graph[parent])) {
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
            const std::uint64_t parentBytes = allocator.aligned(allocSize(parentState.buffer, parent));
            const std::uint64_t nodeBytes = allocator.aligned(allocSize(state.buffer, id));
            if (parentBytes > nodeBytes) {
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

std::vector<std::uint64_t> GraphAllocator::run() {
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
    std::vector<std::uint64_t> bytes(m_types.size(), 0);
    for (std::size_t b = 0; b < m_types.size(); ++b) {
        if (m_owner[b] == b) {
            bytes[b] = m_allocators[b]->reservedBytes();
            bytes[b] += bytes[b] > 0 ? m_types[b].allocBufferPadding * m_allocators[b]->chunkCount() : 0;
        }
    }
    return bytes;
}

} // namespace

std::vector<std::uint64_t> planComputeBuffers(const scheduler::AllocationPlan& plan,
                                              const std::vector<scheduler::BufferType>& bufferTypes) {
    return GraphAllocator(plan, bufferTypes).run();
}

} // namespace llamafit::allocator

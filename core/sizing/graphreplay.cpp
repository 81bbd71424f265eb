// ggml-alloc's graph allocator; see graphreplay.h. The rules restate ggml/src/ggml-alloc.c
// (ggml_gallocr_alloc_graph_impl, ggml_gallocr_allocate_node, ggml_gallocr_free_node) of ggml
// 0.27.0 as scripts/alloc-plan/galloc_replay.py checked them against dumped server graphs.
#include "core/sizing/graphreplay.h"

#include "core/sizing/allocatorreplay.h"

namespace llamafit {

GraphReplay::Id GraphReplay::add(Tensor tensor) {
    m_tensors.push_back(std::move(tensor));
    return m_tensors.size() - 1;
}

GraphReplay::Id GraphReplay::input(Layout layout) {
    Tensor t;
    t.layout = layout;
    t.input = true;
    return add(std::move(t));
}

GraphReplay::Id GraphReplay::node(Layout layout, std::vector<Id> sources, Op op) {
    Tensor t;
    t.layout = layout;
    t.sources = std::move(sources);
    t.inPlace = op == Op::InPlace;
    return add(std::move(t));
}

GraphReplay::Id GraphReplay::view(Id source) {
    // A view of a view points at the tensor that owns the memory (ggml sets view_src so).
    const Id owner = m_tensors[source].isView ? m_tensors[source].viewOf : source;
    Tensor t;
    t.layout = m_tensors[owner].layout;
    t.sources = {source};
    t.isView = true;
    t.viewOf = owner;
    return add(std::move(t));
}

GraphReplay::Id GraphReplay::reshape(Id source, Layout layout) {
    const Id id = view(source);
    m_tensors[id].layout = layout;
    return id;
}

GraphReplay::Id GraphReplay::write(std::vector<Id> sources) {
    Tensor t;
    t.sources = std::move(sources);
    t.external = true;
    return add(std::move(t));
}

void GraphReplay::markOutput(Id id) {
    m_tensors[id].output = true;
}

std::uint64_t GraphReplay::plannedBytes() const {
    struct State {
        int children = 0;
        int views = 0;
        bool allocated = false;
        AllocatorReplay::Block block;
    };
    std::vector<State> state(m_tensors.size());
    AllocatorReplay alloc;
    for (Id id = 0; id < m_tensors.size(); ++id) {
        const Tensor& t = m_tensors[id];
        if (t.isView) {
            ++state[t.viewOf].views;
        }
        for (Id source : t.sources) {
            ++state[source].children;
        }
    }
    for (Id id = 0; id < m_tensors.size(); ++id) {
        if (m_tensors[id].input) {
            state[id].block = alloc.allocate(m_tensors[id].layout.bytes());
            state[id].allocated = true;
        }
    }
    const auto allocate = [&](Id id) {
        const Tensor& t = m_tensors[id];
        if (t.isView || t.external || state[id].allocated) {
            return;
        }
        state[id].allocated = true;
        if (t.inPlace) {
            // ggml_gallocr_allocate_node: take over the first allocated source (a view never is) that
            // dies here with this layout.
            for (Id source : t.sources) {
                const Tensor& parentTensor = m_tensors[source];
                State& parent = state[source];
                if (parentTensor.isView || !parent.allocated || parent.children != 1 || parent.views != 0 ||
                    parentTensor.layout != t.layout || parentTensor.output) {
                    continue;
                }
                state[id].block = parent.block;
                parent.allocated = false;
                return;
            }
        }
        state[id].block = alloc.allocate(t.layout.bytes());
    };
    const auto release = [&](Id id) {
        if (state[id].allocated && !m_tensors[id].output) {
            alloc.release(state[id].block);
            state[id].allocated = false;
        }
    };
    for (Id id = 0; id < m_tensors.size(); ++id) {
        if (m_tensors[id].input) {
            continue;
        }
        allocate(id);
        for (Id source : m_tensors[id].sources) {
            State& parent = state[source];
            if (--parent.children != 0 || parent.views != 0) {
                continue;
            }
            if (m_tensors[source].isView) {
                const Id owner = m_tensors[source].viewOf;
                if (--state[owner].views == 0 && state[owner].children == 0) {
                    release(owner);
                }
            } else {
                release(source);
            }
        }
    }
    return alloc.peakBytes();
}

} // namespace llamafit

// ggml's scheduler, pass by pass; see graphsplit.h. Every rule restates
// ggml/src/ggml-backend.cpp (ggml_backend_sched_split_graph and its helpers
// ggml_backend_sched_backend_id_from_cur, ggml_backend_sched_backend_from_buffer,
// ggml_backend_sched_buffer_supported), ggml 0.27.0 as llama.cpp b11669 ships it.
#include "core/sizing/scheduler/graphsplit.h"

#include <array>
#include <map>
#include <tuple>

namespace llamafit::scheduler {
namespace {

using graph::BufferUsage;
using graph::ComputeGraph;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;

// GGML_SCHED_MAX_SPLIT_INPUTS: a split's inputs array starts this large and doubles when full.
constexpr std::size_t kSplitInputsCapacity = 30;

class Splitter {
  public:
    // Takes the graph over: the split rewires its sources and appends the copies in place.
    Splitter(ComputeGraph graph, const std::vector<SchedulerBackend>& backends,
             const SchedulerOptions& options)
        : m_graph(std::move(graph)), m_backends(backends), m_options(options),
          m_backendOf(m_graph.tensors.size(), -1) {
        for (const TensorId id : m_graph.nodes) {
            m_backendOf[id] = m_graph[id].pinnedBackend;
        }
        for (const TensorId id : m_graph.leafs) {
            m_backendOf[id] = m_graph[id].pinnedBackend;
        }
    }

    Result<ScheduledGraph> run();

  private:
    int cpu() const { return static_cast<int>(m_backends.size()) - 1; }
    bool supportsOp(int backend, TensorId op) const { return m_backends[backend].supportsOp(m_graph, op); }
    int backendOf(TensorId id) const { return id == kNoTensor ? -1 : m_backendOf[id]; }

    // ggml_backend_sched_backend_from_buffer: the highest-priority backend that reads the buffer
    // of `tensor` (through its view source) in place and runs `op`.
    int backendFromBuffer(TensorId tensor, TensorId op) const {
        const graph::Buffer* buffer = m_graph.bufferOf(tensor);
        if (buffer == nullptr) {
            return -1;
        }
        for (int b = 0; b < static_cast<int>(m_backends.size()); ++b) {
            if (m_backends[b].supportsBufferType(buffer->bufferType, buffer->host) && supportsOp(b, op)) {
                return b;
            }
        }
        return -1;
    }

    // ggml_backend_sched_backend_id_from_cur (pass 1).
    Result<int> backendFromCurrent(TensorId id) const {
        const Tensor& tensor = m_graph[id];
        if (const int fromBuffer = backendFromBuffer(id, id); fromBuffer != -1) {
            return fromBuffer;
        }
        if (tensor.isView()) {
            if (const int fromView = backendFromBuffer(tensor.viewSource, id); fromView != -1) {
                return fromView;
            }
        }
        if (const graph::Buffer* buffer = m_graph.bufferOf(id); buffer != nullptr) {
            // ggml-backend.cpp ggml_backend_sched_backend_id_from_cur aborts with these words.
            return makeError("sizing.unschedulable", "pre-allocated tensor (" + tensor.name +
                                                         ") in a buffer (" + buffer->bufferType +
                                                         ") that cannot run the operation (" +
                                                         std::string(graph::ggmlOpName(tensor.op)) + ")");
        }
        if (tensor.hasFlag(graph::kFlagInput)) {
            return cpu(); // the last backend, assumed to be the CPU
        }
        // An op on a weight runs where the weight lives; ROPE's frequency factors and flash
        // attention's sinks are too small to decide.
        if (tensor.op == graph::GgmlOp::Rope || tensor.op == graph::GgmlOp::FlashAttnExt) {
            return -1;
        }
        for (const TensorId source : tensor.sources) {
            if (source == kNoTensor) {
                continue;
            }
            const Tensor& src = m_graph[source];
            // src->buffer itself, not its view source's: a view's buffer is set only when allocated.
            if (src.buffer == graph::kNoBuffer || m_graph.buffers[src.buffer].usage != BufferUsage::Weights) {
                continue;
            }
            const int sourceBackend = backendFromBuffer(source, id);
            if (m_options.opOffload && sourceBackend == cpu() && m_graph.buffers[src.buffer].host) {
                for (int b = 0; b < sourceBackend; ++b) {
                    if (supportsOp(b, id) && m_backends[b].offloadOp &&
                        m_backends[b].offloadOp(m_graph, id)) {
                        return b;
                    }
                }
            }
            return sourceBackend;
        }
        return -1;
    }

    // ggml_backend_sched_buffer_supported: whether `backend` reads the memory `tensor` will be in:
    // its buffer if it has one, else the compute buffer type of the backend it was assigned.
    bool bufferSupported(TensorId tensor, int backend) const {
        if (const graph::Buffer* buffer = m_graph.bufferOf(tensor)) {
            return m_backends[backend].supportsBufferType(buffer->bufferType, buffer->host);
        }
        int assigned = m_backendOf[tensor];
        if (assigned == -1 && m_graph[tensor].isView()) {
            assigned = m_backendOf[m_graph[tensor].viewSource];
        }
        if (assigned == -1) {
            return false;
        }
        const BufferType& type = m_backends[assigned].computeBufferType;
        return m_backends[backend].supportsBufferType(type.name, type.host);
    }

    bool sameBufferType(int a, int b) const {
        return m_backends[a].computeBufferType.name == m_backends[b].computeBufferType.name;
    }

    void expand(bool gpuOnly, bool down);
    void assignRemaining();
    Result<bool> assignSources();
    void split(ScheduledGraph& out);
    void buildPlan(ScheduledGraph& out);

    ComputeGraph m_graph; // the input graph; the split adds its copies and rewires sources in place
    const std::vector<SchedulerBackend>& m_backends;
    SchedulerOptions m_options;
    std::vector<int> m_backendOf;
    std::map<std::tuple<TensorId, int, int>, TensorId> m_copies; // tensor_id_copy(id, backend, copy)
    std::vector<TensorId> m_graphInputs;                         // sched->graph_inputs (n_copies > 1)
};

// Pass 2: one of the four sweeps. A GPU assignment (any but the last backend) spreads to the
// unassigned ops after it (down) or before it (up) that the GPU supports; the CPU interrupts it.
// The last two sweeps spread any assignment, the CPU's included.
void Splitter::expand(bool gpuOnly, bool down) {
    int current = -1;
    const std::size_t count = m_graph.nodes.size();
    for (std::size_t k = 0; k < count; ++k) {
        const TensorId id = m_graph.nodes[down ? k : count - 1 - k];
        if (graph::isViewOp(m_graph[id].op)) {
            continue;
        }
        int& backend = m_backendOf[id];
        if (backend != -1) {
            current = gpuOnly && backend == cpu() ? -1 : backend;
        } else if (current != -1 && supportsOp(current, id)) {
            backend = current;
        }
    }
}

// Pass 3: an op still unassigned goes to the backend that supports it and reads the most of its
// sources in place (the first such backend on a tie); an assigned op moves to a higher-priority
// backend of the same buffer type that supports it and reads all its sources.
void Splitter::assignRemaining() {
    for (const TensorId id : m_graph.nodes) {
        const Tensor& node = m_graph[id];
        if (graph::isViewOp(node.op)) {
            continue;
        }
        int& backend = m_backendOf[id];
        if (backend == -1) {
            int bestSupported = -1;
            for (int b = 0; b < static_cast<int>(m_backends.size()); ++b) {
                if (!supportsOp(b, id)) {
                    continue;
                }
                int supported = 0;
                for (const TensorId source : node.sources) {
                    if (source == kNoTensor) {
                        continue;
                    }
                    const bool assigned =
                        m_backendOf[source] != -1 || backendOf(m_graph[source].viewSource) != -1;
                    if (assigned && bufferSupported(source, b)) {
                        ++supported;
                    }
                }
                if (supported > bestSupported) {
                    bestSupported = supported;
                    backend = b;
                }
            }
            continue;
        }
        for (int b = 0; b < backend; ++b) {
            if (!sameBufferType(b, backend) || !supportsOp(b, id)) {
                continue;
            }
            bool allSupported = true;
            for (const TensorId source : node.sources) {
                if (source != kNoTensor && !bufferSupported(source, b)) {
                    allSupported = false;
                    break;
                }
            }
            if (allSupported) {
                backend = b;
                break;
            }
        }
    }
}

// Pass 4: views follow their source, sources follow their first reader, and an op no pass
// reached goes to the first backend that supports it.
Result<bool> Splitter::assignSources() {
    for (const TensorId id : m_graph.nodes) {
        const Tensor& node = m_graph[id];
        int& backend = m_backendOf[id];
        if (node.isView() && backend == -1) {
            backend = m_backendOf[node.viewSource];
        }
        for (const TensorId source : node.sources) {
            if (source == kNoTensor || m_backendOf[source] != -1) {
                continue;
            }
            const Tensor& src = m_graph[source];
            m_backendOf[source] = src.isView() ? m_backendOf[src.viewSource] : backend;
        }
        for (int b = 0; b < static_cast<int>(m_backends.size()) && backend == -1; ++b) {
            if (supportsOp(b, id)) {
                backend = b;
            }
        }
        if (backend == -1) {
            return makeError("sizing.unschedulable", "no backend runs " +
                                                         std::string(graph::ggmlOpName(node.op)) + " (" +
                                                         node.name + ")");
        }
    }
    return true;
}

// Pass 5: a new split where the backend changes, or where a split that already copies inputs
// meets a weight its backend cannot read (so the memory of the weights it copied can be reused),
// or where its inputs array is full; a copy of every source the split's backend cannot read.
void Splitter::split(ScheduledGraph& out) {
    std::size_t first = 0;
    while (first < m_graph.nodes.size() && graph::isViewOp(m_graph[m_graph.nodes[first]].op)) {
        ++first;
    }
    Split current;
    current.backend = first < m_graph.nodes.size() ? m_backendOf[m_graph.nodes[first]] : cpu();
    current.nodeBegin = 0;
    std::size_t capacity = kSplitInputsCapacity;
    const auto copyOf = [&](TensorId source, int backend, int copy) {
        const auto found = m_copies.find({source, backend, copy});
        return found == m_copies.end() ? kNoTensor : found->second;
    };
    const auto addCopy = [&](TensorId source, int backend, int copy, bool pinned) {
        Tensor tensor = m_graph[source]; // ggml_dup_tensor_layout: same type, ne and nb, no op
        tensor.op = graph::GgmlOp::None;
        tensor.sources.fill(kNoTensor);
        tensor.viewSource = kNoTensor;
        tensor.viewOffset = 0;
        tensor.buffer = graph::kNoBuffer;
        tensor.pinnedBackend = -1;
        tensor.flags = pinned ? (graph::kFlagInput | graph::kFlagOutput) : 0;
        tensor.name = m_backends[backend].name + "#" + m_graph[source].name + "#" + std::to_string(copy);
        m_graph.tensors.push_back(std::move(tensor));
        const TensorId id = static_cast<TensorId>(m_graph.tensors.size() - 1);
        m_copies[{source, backend, copy}] = id;
        return id;
    };
    // The pipeline copies of a graph input on its own backend, the original being the current copy.
    const auto addGraphInput = [&](TensorId source, int sourceBackend) {
        if (copyOf(source, sourceBackend, 0) != kNoTensor) {
            return;
        }
        for (int c = 0; c < m_options.copies; ++c) {
            if (c == m_options.currentCopy) {
                m_copies[{source, sourceBackend, c}] = source;
                m_graph[source].flags |= graph::kFlagInput | graph::kFlagOutput;
            } else {
                addCopy(source, sourceBackend, c, true);
            }
        }
        m_graphInputs.push_back(source);
    };
    // llama-server b11669 (ggml 0.27.0) under pipeline parallelism copies every input leaf, in leaf
    // order, even one no node reads (inp_embd beside inp_tokens): its plans
    // (tests/data/plans/rpc_*) list the copies of the graph inputs in leaf order.
    if (m_options.copies > 1) {
        for (const TensorId leaf : m_graph.leafs) {
            if (m_graph[leaf].hasFlag(graph::kFlagInput)) {
                addGraphInput(leaf, m_backendOf[leaf] >= 0 ? m_backendOf[leaf] : cpu());
            }
        }
    }
    for (std::size_t i = first; i < m_graph.nodes.size(); ++i) {
        const TensorId id = m_graph.nodes[i];
        // By value: adding a copy grows the tensor vector, and this node's sources are rewired below.
        const std::array<TensorId, graph::kMaxSources> sources = m_graph[id].sources;
        if (graph::isViewOp(m_graph[id].op)) {
            continue;
        }
        const int nodeBackend = m_backendOf[id];
        bool newSplit = false;
        if (nodeBackend == current.backend && !current.inputs.empty()) {
            for (const TensorId source : sources) {
                if (source == kNoTensor) {
                    continue;
                }
                const Tensor& src = m_graph[source];
                if (src.buffer != graph::kNoBuffer &&
                    m_graph.buffers[src.buffer].usage == BufferUsage::Weights &&
                    m_backendOf[source] != current.backend && !bufferSupported(source, current.backend)) {
                    newSplit = true;
                    break;
                }
                if (current.inputs.size() >= capacity && m_backendOf[source] != current.backend &&
                    copyOf(source, current.backend, 0) == kNoTensor &&
                    !bufferSupported(source, current.backend)) {
                    newSplit = true;
                    break;
                }
            }
        }
        if (nodeBackend != current.backend || newSplit) {
            current.nodeEnd = i;
            out.splits.push_back(std::move(current));
            current = Split{};
            current.backend = nodeBackend;
            current.nodeBegin = i;
            capacity = kSplitInputsCapacity;
        }
        for (std::size_t j = 0; j < graph::kMaxSources; ++j) {
            const TensorId source = sources[j];
            if (source == kNoTensor) {
                continue;
            }
            const int sourceBackend = m_backendOf[source];
            if (m_graph[source].hasFlag(graph::kFlagInput) && m_options.copies > 1) {
                addGraphInput(source, sourceBackend);
            }
            if (sourceBackend != current.backend && !bufferSupported(source, current.backend)) {
                if (copyOf(source, current.backend, 0) == kNoTensor) {
                    for (int c = 0; c < m_options.copies; ++c) {
                        addCopy(source, current.backend, c, m_options.copies > 1);
                    }
                    current.inputs.push_back(source);
                    if (current.inputs.size() > capacity) {
                        capacity *= 2;
                    }
                }
                m_graph[id].sources[j] = copyOf(source, current.backend, m_options.currentCopy);
            }
        }
    }
    current.nodeEnd = m_graph.nodes.size();
    out.splits.push_back(std::move(current));
}

// sched->graph: per split, each input's dependency (a view of the input, so that it lives until
// the copy) on the input's backend and its copy on the split's backend, then the split's nodes
// in the order its backend's graph_optimize leaves them; then the leafs: the pipeline copies of
// the graph inputs and of the split inputs, and the original leafs.
void Splitter::buildPlan(ScheduledGraph& out) {
    AllocationPlan& plan = out.plan;
    for (const Split& split : out.splits) {
        for (const TensorId input : split.inputs) {
            Tensor dependency = m_graph[input]; // ggml_view_tensor: a view with no op
            dependency.op = graph::GgmlOp::None;
            dependency.sources.fill(kNoTensor);
            dependency.sources[0] = input;
            dependency.viewSource = m_graph[input].isView() ? m_graph[input].viewSource : input;
            dependency.buffer = graph::kNoBuffer;
            dependency.flags = 0;
            dependency.pinnedBackend = -1;
            dependency.name = m_graph[input].name + " (view)";
            m_graph.tensors.push_back(std::move(dependency));
            plan.nodes.push_back(static_cast<TensorId>(m_graph.tensors.size() - 1));
            plan.nodeBackends.push_back(m_backendOf[input]);
            plan.nodes.push_back(m_copies.at({input, split.backend, m_options.currentCopy}));
            plan.nodeBackends.push_back(split.backend);
        }
        std::vector<TensorId> nodes(m_graph.nodes.begin() + static_cast<std::ptrdiff_t>(split.nodeBegin),
                                    m_graph.nodes.begin() + static_cast<std::ptrdiff_t>(split.nodeEnd));
        if (m_backends[split.backend].optimizeGraph) {
            m_backends[split.backend].optimizeGraph(m_graph, nodes);
        }
        for (const TensorId id : nodes) {
            plan.nodes.push_back(id);
            plan.nodeBackends.push_back(m_backendOf[id]);
        }
    }
    if (m_options.copies > 1) {
        for (const TensorId input : m_graphInputs) {
            for (int c = 0; c < m_options.copies; ++c) {
                plan.leafs.push_back(m_copies.at({input, m_backendOf[input], c}));
                plan.leafBackends.push_back(m_backendOf[input]);
            }
        }
        for (const Split& split : out.splits) {
            for (const TensorId input : split.inputs) {
                for (int c = 0; c < m_options.copies; ++c) {
                    plan.leafs.push_back(m_copies.at({input, split.backend, c}));
                    plan.leafBackends.push_back(split.backend);
                }
            }
        }
    }
    for (const TensorId id : m_graph.leafs) {
        plan.leafs.push_back(id);
        plan.leafBackends.push_back(m_backendOf[id]);
    }
    plan.graph = std::move(m_graph);
}

Result<ScheduledGraph> Splitter::run() {
    // Pass 1: leafs, then nodes, unless llama.cpp pinned them.
    for (const std::vector<TensorId>* list : {&m_graph.leafs, &m_graph.nodes}) {
        for (const TensorId id : *list) {
            if (m_backendOf[id] != -1) {
                continue;
            }
            Result<int> backend = backendFromCurrent(id);
            if (!backend) {
                return backend.error();
            }
            m_backendOf[id] = *backend;
        }
    }
    expand(true, true);
    expand(true, false);
    expand(false, true);
    expand(false, false);
    assignRemaining();
    if (Result<bool> assigned = assignSources(); !assigned) {
        return assigned.error();
    }
    ScheduledGraph out;
    split(out);
    buildPlan(out);
    out.backendOf = m_backendOf;
    return out;
}

} // namespace

Result<ScheduledGraph> splitGraph(ComputeGraph graph, const std::vector<SchedulerBackend>& backends,
                                  const SchedulerOptions& options) {
    if (backends.empty()) {
        return makeError("sizing.unschedulable", "the scheduler needs at least one backend");
    }
    return Splitter(std::move(graph), backends, options).run();
}

} // namespace llamafit::scheduler

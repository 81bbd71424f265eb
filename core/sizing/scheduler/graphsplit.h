#pragma once
// splitGraph: ggml's scheduler (ggml/src/ggml-backend.cpp ggml_backend_sched_split_graph) over a
// ComputeGraph: which backend runs each op, where the graph splits between backends, which
// tensors a split copies in from another backend, and the graph ggml-alloc then lays out
// (sched->graph with node_backend_ids and leaf_backend_ids). The allocator port
// (core/sizing/allocator/graphallocator.h) sizes the compute buffers from that.
//
// The passes, in ggml's order: (1) a tensor in a buffer runs where that buffer is read, graph
// inputs go to the last backend (the CPU), an op on a weight runs where the weight lives unless a
// higher-priority backend's offload_op takes it; (2) GPU assignments spread down and up over the
// unassigned ops they support, then any assignment does; (3) unassigned ops go to the backend that
// reads most of their sources in place, assigned ones move up to a higher-priority backend with
// the same buffer type; (4) sources and views follow; (5) splits, and a copy of each source a
// split's backend cannot read, per pipeline copy. Pure function.

#include "core/common/result.h"
#include "core/sizing/graph/computegraph.h"
#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstddef>
#include <vector>

namespace llamafit::scheduler {

struct SchedulerOptions {
    bool opOffload = true; // sched->op_offload (llama.cpp: !--no-op-offload)
    int copies = 1;        // sched->n_copies: GGML_SCHED_MAX_COPIES (4) under pipeline parallelism
    int currentCopy = 0;   // sched->cur_copy: reserves run with copy 0
};

struct Split {
    int backend = -1;
    std::size_t nodeBegin = 0; // into the input graph's nodes
    std::size_t nodeEnd = 0;
    std::vector<graph::TensorId> inputs; // sources copied in from another backend
};

// What ggml-alloc is handed: the scheduler's own graph, in which each split's input copies come
// first, and each tensor's backend doubles as its buffer id.
struct AllocationPlan {
    graph::ComputeGraph graph; // the input graph with the copies added and sources rewired
    std::vector<graph::TensorId> nodes;
    std::vector<int> nodeBackends; // node_backend_ids
    std::vector<graph::TensorId> leafs;
    std::vector<int> leafBackends; // leaf_backend_ids
};

struct ScheduledGraph {
    std::vector<int> backendOf; // per tensor of the input graph (-1: never needed one)
    std::vector<Split> splits;
    AllocationPlan plan;
};

// Error code: sizing.unschedulable (a pre-allocated tensor in a buffer that no backend reading it
// can run the op on, or an op no backend supports: ggml aborts there).
// The graph is taken by value: a caller that moves it in saves a copy.
Result<ScheduledGraph> splitGraph(graph::ComputeGraph graph, const std::vector<SchedulerBackend>& backends,
                                  const SchedulerOptions& options = {});

} // namespace llamafit::scheduler

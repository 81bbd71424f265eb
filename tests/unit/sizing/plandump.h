#pragma once
// A plan dump: what the real llama-server's scheduler was handed and what it made of it, written by
// scripts/alloc-plan/allocdump.c (GRAPH_PRE=1) and kept under tests/data/plans (README there).
// `graph` is the graph before ggml_backend_sched_split_graph; `backends` the scheduler's backends
// with their compute buffer types; `expectedBackend` the backend the real scheduler gave each of
// the graph's tensors (-1 where the post-split graph did not hold it); `expectedBufferBytes` the
// compute buffer ggml-alloc reserved per backend after this reserve. Test support only.

#include "core/common/result.h"
#include "core/sizing/graph/computegraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit::test {

struct DumpedBackend {
    std::string name;       // "Vulkan0", "CPU"
    std::string bufferType; // its compute buffer type: "Vulkan0", "Vulkan_Host", "CPU"
    bool host = false;
};

struct PlanDump {
    graph::ComputeGraph graph;
    std::vector<DumpedBackend> backends;
    std::vector<int> expectedBackend;               // per tensor of `graph`
    std::vector<std::uint64_t> expectedBufferBytes; // per backend
};

// Reads `<stem>.pre` (the graph) and `<stem>.post` (the scheduler's result). Error code
// test.bad-plan-dump names the file and line.
Result<PlanDump> readPlanDump(const std::string& stem);

} // namespace llamafit::test

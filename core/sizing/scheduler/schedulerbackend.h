#pragma once
// SchedulerBackend: one ggml backend as ggml's scheduler sees it (ggml/src/ggml-backend.cpp,
// struct ggml_backend_sched: backends[], bufts[]): which buffer types it reads in place
// (supports_buft), which ops it runs (supports_op), which ops it wants to take over from the CPU
// although their weights sit in host memory (offload_op), how it reorders a split before it runs
// (graph_optimize), and its compute buffer type's alignment, maximum buffer size and per-tensor
// allocation size (ggml_backend_buft_get_alignment / get_max_size / get_alloc_size).
//
// One table per ggml backend: cpubackend.h, vulkanbackend.h, cudabackend.h (CUDA and ROCm),
// metalbackend.h, rpcbackend.h; each rule cites the ggml source it
// restates. The scheduler (graphsplit.h) and the allocator (core/sizing/allocator) read them.
// Pure values; sizes in bytes.

#include "core/sizing/graph/computegraph.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit::scheduler {

// A buffer type, as ggml names it (ggml_backend_buft_name), and what ggml-alloc asks of it.
struct BufferType {
    std::string name;             // "CPU", "Vulkan0", "Vulkan_Host", "CUDA_Host"
    bool host = false;            // ggml_backend_buft_is_host
    std::uint64_t alignment = 32; // ggml_backend_buft_get_alignment
    std::uint64_t maxSize =
        UINT64_MAX / 2; // ggml_backend_buft_get_max_size (ggml-alloc clamps to SIZE_MAX/2)
    // get_alloc_size of a tensor of a graph (some backends size a node's scratch from its sources);
    // empty = ggml_nbytes.
    std::function<std::uint64_t(const graph::ComputeGraph&, graph::TensorId)> allocSize;
    // Bytes alloc_buffer adds to each buffer (each of ggml-alloc's chunks) it allocates, so that
    // ggml_backend_buffer_get_size, and the logged compute buffer, exceed what ggml-alloc asked
    // for: 32 for Vulkan_Host (ggml_backend_vk_host_buffer_type_alloc_buffer), 0 for the others.
    // A zero-sized request allocates nothing (ggml_backend_buft_alloc_buffer's dummy buffer).
    std::uint64_t allocBufferPadding = 0;
    std::uint64_t allocSizeOf(const graph::ComputeGraph& graph, graph::TensorId id) const {
        return allocSize ? allocSize(graph, id) : graph[id].bytes();
    }
};

struct SchedulerBackend {
    std::string name;             // ggml_backend_name: "Vulkan0", "CPU"
    BufferType computeBufferType; // sched->bufts[b]: where this backend's compute tensors are allocated
    // supports_buft: whether the backend reads a buffer type in place (else the scheduler copies).
    std::function<bool(std::string_view bufferType, bool host)> supportsBufferType;
    std::function<bool(const graph::ComputeGraph&, graph::TensorId)> supportsOp;
    // offload_op: empty for a backend that never asks (the CPU).
    std::function<bool(const graph::ComputeGraph&, graph::TensorId)> offloadOp;
    // graph_optimize: reorders a split's nodes in place; empty for a backend that keeps the order.
    std::function<void(const graph::ComputeGraph&, std::vector<graph::TensorId>&)> optimizeGraph;
};

} // namespace llamafit::scheduler

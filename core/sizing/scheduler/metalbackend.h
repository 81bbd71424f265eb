#pragma once
// The Metal backend as ggml's scheduler sees it (ggml/src/ggml-metal): which ops one Metal device
// runs (ggml_metal_device_supports_op, ggml-metal-device.m), which buffer types it reads in place
// (its own shared, private and mapped types), which ops on host weights it takes over (matrix
// products only, the batch rule), how it reorders each split for concurrency before ggml-alloc
// sees it (ggml_graph_optimize, ggml-metal-common.cpp), and its buffer type's alignment, maximum
// size (the device's maxBufferLength) and per-tensor allocation size (the scratch that flash
// attention, MUL_MAT_ID, ARGSORT, CUMSUM and TOP_K keep behind their results).
//
// Metal has no host buffer type (get_host_buffer_type is NULL), so llama.cpp leaves the CPU
// backend its own "CPU" compute buffer type when a Metal device is the model's first device
// (llama-context.cpp); cpuBackend()'s default is that.
//
// Who uses it: the scheduler port (graphsplit.h) through the SchedulerBackend it returns. A
// MetalDevice is the handful of MTLDevice properties and environment knobs the rules read, as
// ggml_metal_device_init logs them; sizes in bytes. Pure values, no Metal calls.

#include "core/sizing/llamabuild.h"
#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstdint>
#include <string>

namespace llamafit::scheduler {

struct MetalDevice {
    int index = 0;    // "MTL0": the device, the backend and its buffer types
    std::string name; // the estimate's name for it where not "MTL<index>" (as CudaDevice::name)
    // MTLDevice.maxBufferLength, the buffer types' maximum size. Unset, it is ggml-alloc's clamp of
    // SIZE_MAX; set it from the Mac being sized.
    std::uint64_t maxBufferLength = UINT64_MAX / 2;
    // supportsFamily: Apple7 or Metal3 gives simdgroup reductions, Apple7 the simdgroup matrix
    // product (flash attention needs it); Metal3 or Apple6 bfloat (GGML_METAL_BF16_DISABLE off).
    bool simdgroupReduction = true;
    bool simdgroupMatrixMultiply = true;
    bool bfloat = true;
    // use_shared_buffers: hasUnifiedMemory (Apple silicon), or an external GPU; the buffer type is
    // then "MTL0", else "MTL0_Private" (GGML_METAL_SHARED_BUFFERS_DISABLE / _ENABLE override).
    bool sharedBuffers = true;
    // GGML_OP_OFFLOAD_MIN_BATCH (default 32) and GGML_METAL_GRAPH_OPTIMIZE_DISABLE.
    std::int64_t opOffloadMinBatch = 32;
    bool graphOptimize = true;
    // The llama.cpp build (llamabuild.h): flash attention's f16 K/V from kMetalFlashAttnF16Build.
    std::uint32_t llamaBuild = kReferenceLlamaBuild;

    bool operator==(const MetalDevice&) const = default;
};

// "MTL0" (ggml_metal_device_init: "MTL" + the device index).
std::string metalDeviceName(const MetalDevice& device);

// The device's buffer type: "MTL0" (shared) or "MTL0_Private"; its allocSize is metalAllocSize.
BufferType metalBufferType(const MetalDevice& device);

// ggml_backend_metal_buffer_type_get_alloc_size for a tensor of a graph, bytes.
std::uint64_t metalAllocSize(const MetalDevice& device, const graph::ComputeGraph& graph, graph::TensorId id);

SchedulerBackend metalBackend(const MetalDevice& device);

} // namespace llamafit::scheduler

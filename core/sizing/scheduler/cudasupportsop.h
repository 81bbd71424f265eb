#pragma once
// ggml_backend_cuda_device_supports_op and flash attention's kernel choice and scratch size
// (ggml-cuda/fattn.cu), restated over a ComputeGraph for cudabackend.cpp, which assembles the
// CUDA SchedulerBackend. Internal to core/sizing/scheduler.

#include "core/sizing/graph/computegraph.h"
#include "core/sizing/scheduler/cudabackend.h"

#include <cstdint>

namespace llamafit::scheduler {

bool cudaSupportsOp(const CudaDevice& device, const graph::ComputeGraph& graph, graph::TensorId id);

// ggml_cuda_flash_attn_ext_get_alloc_size: a FLASH_ATTN_EXT node's bytes with the f16 copies of
// K and V its kernel converts them to, placed behind the result.
std::uint64_t cudaFlashAttnAllocBytes(const CudaDevice& device, const graph::ComputeGraph& graph,
                                      graph::TensorId id);

} // namespace llamafit::scheduler

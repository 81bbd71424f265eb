// The CUDA (and HIP) backend's table; see cudabackend.h. Every rule restates
// ggml/src/ggml-cuda/ggml-cuda.cu unless it names another file; the op table and flash
// attention's kernel choice are in cudasupportsop.cpp and cudaflashattention.cpp.
#include "core/sizing/scheduler/cudabackend.h"

#include "core/sizing/scheduler/cudasupportsop.h"
#include "core/sizing/scheduler/tensorlayout.h"

namespace llamafit::scheduler {
namespace {

using graph::GgmlOp;

// MATRIX_ROW_PADDING (common.cuh): the last row of a quantized matrix is read in whole 512-value
// chunks, so its buffer reaches that far.
constexpr std::int64_t kMatrixRowPadding = 512;

// ggml_backend_cuda_buffer_type_get_alloc_size, the part a tensor decides alone: a quantized
// tensor whose rows are not a multiple of MATRIX_ROW_PADDING gets the bytes of the values that
// round its last row up to one.
std::uint64_t cudaRowPaddedBytes(const graph::Tensor& tensor, std::uint64_t bytes) {
    if (layout::isQuantized(tensor.type) && tensor.ne[0] % kMatrixRowPadding != 0) {
        bytes += layout::rowSize(tensor.type, kMatrixRowPadding - tensor.ne[0] % kMatrixRowPadding);
    }
    return bytes;
}

} // namespace

std::vector<CudaFlashAttnPair> cudaDefaultFlashAttnPairs() {
    // ggml/CMakeLists.txt GGML_CUDA_FA_QUANTS (llama.cpp PR #28079; docs/build.md).
    return {
        {GgmlType::Q4_0, GgmlType::Q4_0}, {GgmlType::Q8_0, GgmlType::Q8_0}, {GgmlType::BF16, GgmlType::BF16}};
}

std::vector<CudaFlashAttnPair> cudaAllFlashAttnPairs() {
    // The legal types of GGML_CUDA_FA_QUANTS (ggml/CMakeLists.txt).
    const GgmlType types[] = {GgmlType::F16,  GgmlType::BF16, GgmlType::Q4_0, GgmlType::Q4_1,
                              GgmlType::Q5_0, GgmlType::Q5_1, GgmlType::Q8_0};
    std::vector<CudaFlashAttnPair> pairs;
    for (const GgmlType k : types) {
        for (const GgmlType v : types) {
            pairs.emplace_back(k, v);
        }
    }
    return pairs;
}

std::string cudaBackendPrefix(const CudaDevice& device) {
    // GGML_CUDA_NAME: "CUDA", or "ROCm" under GGML_USE_HIP (vendors/hip.h).
    return device.hip ? "ROCm" : "CUDA";
}

std::string cudaDeviceName(const CudaDevice& device) {
    // ggml_backend_cuda_reg: GGML_CUDA_NAME + the device index, for the device, the backend
    // (ggml_backend_cuda_get_name) and the buffer type (ggml_backend_cuda_buffer_type) alike.
    return device.name.empty() ? cudaBackendPrefix(device) + std::to_string(device.index) : device.name;
}

std::uint64_t cudaAllocSize(const CudaDevice& device, const graph::ComputeGraph& graph, graph::TensorId id) {
    const graph::Tensor& tensor = graph[id];
    // ggml_backend_cuda_buffer_type_get_alloc_size: a FLASH_ATTN_EXT node carries its kernel's f16
    // K/V copies (ggml_cuda_flash_attn_ext_get_alloc_size, llama.cpp PR #23907); every other
    // tensor starts from ggml_nbytes. Then the quantized row padding.
    const bool copies = tensor.op == GgmlOp::FlashAttnExt && device.llamaBuild >= kCudaFlashAttnCopiesBuild;
    const std::uint64_t bytes = copies ? cudaFlashAttnAllocBytes(device, graph, id) : tensor.bytes();
    return cudaRowPaddedBytes(tensor, bytes);
}

BufferType cudaBufferType(const CudaDevice& device) {
    BufferType type;
    type.name = cudaDeviceName(device); // ggml_backend_cuda_buffer_type_get_name
    type.host = false;                  // no is_host
    type.alignment = 128;               // ggml_backend_cuda_buffer_type_get_alignment
    // get_max_size is NULL: SIZE_MAX, which ggml-alloc clamps (the BufferType default).
    // get_alloc_size: cudaAllocSize (the row padding, a flash attention node's K/V copies).
    type.allocSize = [device](const graph::ComputeGraph& graph, graph::TensorId id) {
        return cudaAllocSize(device, graph, id);
    };
    // ggml_backend_cuda_buffer_type_alloc_buffer: cudaMalloc of the size asked, reported as is.
    return type;
}

BufferType cudaHostBufferType(const CudaDevice& device) {
    BufferType type;
    // ggml_backend_cuda_host_buffer_type: GGML_CUDA_NAME "_Host", with the CPU buffer type's
    // alignment (TENSOR_ALIGNMENT, 32), is_host and get_alloc_size (ggml_nbytes); get_max_size
    // NULL. Its alloc_buffer is cudaMallocHost of the size asked (no padding; with
    // GGML_CUDA_NO_PINNED or a failed pin it falls back to a plain CPU buffer of the same size).
    type.name = cudaBackendPrefix(device) + "_Host";
    type.host = true;
    type.alignment = 32;
    return type;
}

SchedulerBackend cudaBackend(const CudaDevice& device) {
    SchedulerBackend backend;
    backend.name = cudaDeviceName(device);
    backend.computeBufferType = cudaBufferType(device);
    // ggml_backend_cuda_device_supports_buft: this device's own buffer type; an integrated GPU
    // also reads the pinned host buffer type in place.
    backend.supportsBufferType = [name = cudaDeviceName(device), host = cudaBackendPrefix(device) + "_Host",
                                  integrated = device.integrated](std::string_view bufferType, bool) {
        return bufferType == name || (integrated && bufferType == host);
    };
    backend.supportsOp = [device](const graph::ComputeGraph& graph, graph::TensorId id) {
        return cudaSupportsOp(device, graph, id);
    };
    // ggml_backend_cuda_device_offload_op: an op on a host weight comes to the device when its
    // batch reaches op_offload_min_batch_size (GGML_OP_OFFLOAD_MIN_BATCH, default 32).
    backend.offloadOp = [minBatch = device.opOffloadMinBatch](const graph::ComputeGraph& graph,
                                                              graph::TensorId id) {
        return layout::opBatchSize(graph[id]) >= minBatch;
    };
    // ggml_backend_cuda_graph_optimize returns at once unless GGML_CUDA_GRAPH_OPT=1 (and then only
    // with CUDA graphs on a single device): optimizeGraph stays empty.
    return backend;
}

} // namespace llamafit::scheduler

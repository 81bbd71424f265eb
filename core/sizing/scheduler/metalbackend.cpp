// The Metal backend's table; see metalbackend.h. The buffer types, offload_op and supports_buft
// restate ggml/src/ggml-metal/ggml-metal.cpp, the scratch sizes ggml-metal-ops.cpp; the op table
// and the reorder are in metalsupportsop.cpp and metalgraphoptimize.cpp.
#include "core/sizing/scheduler/metalbackend.h"

#include "core/sizing/scheduler/metalsupportsop.h"
#include "core/sizing/scheduler/tensorlayout.h"

#include <algorithm>

namespace llamafit::scheduler {
namespace {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;

// ggml-metal-impl.h: queries and cache values per simdgroup of the flash attention kernels.
constexpr std::int64_t kFattnQueriesPerGroup = 8;    // OP_FLASH_ATTN_EXT_NQPSG
constexpr std::int64_t kFattnCachePerGroup = 64;     // OP_FLASH_ATTN_EXT_NCPSG
constexpr std::int64_t kFattnVecQueriesPerGroup = 1; // OP_FLASH_ATTN_EXT_VEC_NQPSG
constexpr std::int64_t kFattnVecCachePerGroup = 32;  // OP_FLASH_ATTN_EXT_VEC_NCPSG

std::uint64_t padTo(std::uint64_t bytes, std::uint64_t alignment) {
    return (bytes + alignment - 1) / alignment * alignment; // GGML_PAD
}

std::uint64_t u64(std::int64_t value) {
    return static_cast<std::uint64_t>(value);
}

// ggml_metal_op_flash_attn_ext_use_kv_f16 (llama.cpp PR #27390): a batch of 32 or more queries
// over a q4/q5/q8 K cache is dequantized to f16 first.
bool metalFattnKvF16(const Tensor& q, const Tensor& k) {
    if (q.ne[1] < 32) {
        return false;
    }
    switch (k.type) {
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
        return true;
    default:
        return false;
    }
}

// ggml_metal_op_flash_attn_ext_extra_pad, extra_blk, extra_tmp and extra_kv_f16: the scratch a
// FLASH_ATTN_EXT node keeps behind its result. ggml reserves each whether or not the kernel it
// picks uses it ("always reserve ... to avoid graph reallocations").
std::uint64_t metalFattnExtraBytes(const MetalDevice& device, const ComputeGraph& graph, const Tensor& op) {
    const TensorId kId = op.sources[1];
    const TensorId vId = op.sources[2];
    const Tensor& q = graph[op.sources[0]];
    const Tensor& k = graph[kId];
    const Tensor& v = graph[vId];
    const Tensor* mask = op.sources[3] != kNoTensor ? &graph[op.sources[3]] : nullptr;
    // The f16 K/V came with llama.cpp PR #27390 (kMetalFlashAttnF16Build).
    const bool f16Reserved = device.llamaBuild >= kMetalFlashAttnF16Build;
    const bool kvF16 = f16Reserved && metalFattnKvF16(q, k);
    const bool vViewsK = layout::valueIsViewOfKey(graph, kId, vId);

    // pad: one tail chunk of the non-vector kernel (NCPSG cache rows) of K, V and the mask, the
    // K/V rows at f16 size when they are dequantized first.
    const std::uint64_t kRowBytes = kvF16 ? 2 * u64(k.ne[0]) : k.nb[1];
    const std::uint64_t vRowBytes = kvF16 ? 2 * u64(vViewsK ? k.ne[0] : v.ne[0]) : v.nb[1];
    const std::uint64_t maskBytes = mask != nullptr ? 2 * u64(mask->ne[1] * mask->ne[2] * mask->ne[3]) : 0;
    std::uint64_t bytes = u64(kFattnCachePerGroup) * (kRowBytes * u64(k.ne[2] * k.ne[3]) +
                                                      vRowBytes * u64(v.ne[2] * v.ne[3]) + maskBytes);

    // blk: one byte per (query tile, cache chunk) of the mask, per mask head and sequence, at the
    // kernel's tile (the vector kernel below 20 queries with a head size a multiple of 32).
    if (mask != nullptr) {
        const bool vec = q.ne[1] < 20 && q.ne[0] % 32 == 0; // ggml_metal_op_flash_attn_ext_use_vec
        const std::int64_t queries = vec ? kFattnVecQueriesPerGroup : kFattnQueriesPerGroup;
        const std::int64_t cache = vec ? kFattnVecCachePerGroup : kFattnCachePerGroup;
        const std::int64_t tiles = (q.ne[1] + queries - 1) / queries;
        const std::int64_t chunks = (mask->ne[0] + cache - 1) / cache;
        bytes += padTo(u64(chunks * tiles * mask->ne[2] * mask->ne[3]), 32);
    }

    // tmp: the vector kernel's 32 workgroups' partial results (a V head plus S and M) for up to
    // 32 queries of each head.
    const std::int64_t workgroups = 32;
    bytes += 4 * u64(std::min<std::int64_t>(q.ne[1], 32) * q.ne[2] * q.ne[3] * workgroups * (v.ne[0] + 2));

    // kv_f16: the f16 K, then the f16 V unless V views K, each padded to 16 bytes; reserved for
    // every K/V type.
    if (f16Reserved) {
        bytes += padTo(2 * u64(layout::elements(k)), 16);
        if (!vViewsK) {
            bytes += padTo(2 * u64(layout::elements(v)), 16);
        }
    }
    return bytes;
}

// The part of get_alloc_size a tensor decides alone: ARGSORT and CUMSUM double their bytes.
std::uint64_t metalOwnAllocBytes(const Tensor& tensor) {
    const std::uint64_t bytes = tensor.bytes();
    return tensor.op == GgmlOp::Argsort || tensor.op == GgmlOp::Cumsum ? 2 * bytes : bytes;
}

// ggml-metal.cpp get_op_batch_size: the rows a matrix product works on.
std::int64_t metalOpBatchSize(const Tensor& op) {
    switch (op.op) {
    case GgmlOp::MulMat:
        return op.ne[1];
    case GgmlOp::MulMatId:
        return op.ne[2];
    default:
        return layout::rows(op);
    }
}

} // namespace

std::string metalDeviceName(const MetalDevice& device) {
    return device.name.empty() ? "MTL" + std::to_string(device.index) : device.name;
}

std::uint64_t metalAllocSize(const MetalDevice& device, const ComputeGraph& graph, TensorId id) {
    // ggml_backend_metal_buffer_type_get_alloc_size: ggml_nbytes plus "additional memory for
    // fleeting data" of a few ops.
    const Tensor& op = graph[id];
    switch (op.op) {
    case GgmlOp::MulMatId: {
        // ggml_metal_op_mul_mat_id_extra_tpe and _ids: an int32 count per expert, and an int32
        // per expert and token.
        const std::int64_t experts = graph[op.sources[0]].ne[2];
        const std::int64_t tokens = graph[op.sources[2]].ne[1];
        return op.bytes() + 4 * u64(experts) + 4 * u64(experts * tokens);
    }
    case GgmlOp::FlashAttnExt:
        return op.bytes() + metalFattnExtraBytes(device, graph, op);
    case GgmlOp::TopK:
        // Replaced, not added to: two int32 per value of the source.
        return 2 * 4 * u64(layout::elements(graph[op.sources[0]]));
    default:
        return metalOwnAllocBytes(op);
    }
}

BufferType metalBufferType(const MetalDevice& device) {
    BufferType type;
    // ggml_backend_metal_device_get_buffer_type: the shared type ("MTL0") with use_shared_buffers,
    // else the private one ("MTL0_Private"); neither is_host, both align to 32 and stop at
    // max_buffer_size (maxBufferLength).
    type.name = metalDeviceName(device) + (device.sharedBuffers ? "" : "_Private");
    type.host = false;
    type.alignment = 32;
    type.maxSize = device.maxBufferLength;
    type.allocSize = [device](const ComputeGraph& graph, TensorId id) {
        return metalAllocSize(device, graph, id);
    };
    // ggml_backend_metal_buffer_type_alloc_buffer reports the size asked (no padding).
    return type;
}

SchedulerBackend metalBackend(const MetalDevice& device) {
    SchedulerBackend backend;
    backend.name = metalDeviceName(device); // ggml_metal_get_name: the device's name
    backend.computeBufferType = metalBufferType(device);
    // ggml_backend_metal_device_supports_buft: this device's shared, private and mapped (mmap'd
    // weights, "MTL0_Mapped") buffer types; no host type, "CPU" included, is read in place.
    backend.supportsBufferType = [name = metalDeviceName(device)](std::string_view bufferType, bool) {
        return bufferType == name || bufferType == name + "_Private" || bufferType == name + "_Mapped";
    };
    backend.supportsOp = [device](const ComputeGraph& graph, TensorId id) {
        return metalSupportsOp(device, graph, id);
    };
    // ggml_backend_metal_device_offload_op: only matrix products on host weights, from
    // op_offload_min_batch_size rows (GGML_OP_OFFLOAD_MIN_BATCH, default 32).
    backend.offloadOp = [minBatch = device.opOffloadMinBatch](const ComputeGraph& graph, TensorId id) {
        const Tensor& op = graph[id];
        return (op.op == GgmlOp::MulMat || op.op == GgmlOp::MulMatId) && metalOpBatchSize(op) >= minBatch;
    };
    // ggml_backend_metal_graph_optimize -> ggml_graph_optimize, unless
    // GGML_METAL_GRAPH_OPTIMIZE_DISABLE (ggml-metal-context.m use_graph_optimize).
    if (device.graphOptimize) {
        backend.optimizeGraph = metalOptimizeGraph;
    }
    return backend;
}

} // namespace llamafit::scheduler

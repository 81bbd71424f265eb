#pragma once
// ggml's tensor-layout predicates (ggml/src/ggml.c and ggml-impl.h) over a graph::Tensor, for the
// backend tables that read them in supports_op, offload_op and get_alloc_size (the CUDA, Metal and
// Vulkan tables). Internal to core/sizing/scheduler;
// kept in their own namespace so that a unity build may put them beside a table's own helpers.
// Sizes in bytes, counts in elements.

#include "core/sizing/graph/computegraph.h"

#include <cstdint>
#include <cstring>

namespace llamafit::scheduler::layout {

inline std::uint64_t typeSize(GgmlType type) {
    return ggmlTypeTraits(type).bytesPerBlock; // ggml_type_size
}

inline std::int64_t blockSize(GgmlType type) {
    return ggmlTypeTraits(type).blockSize; // ggml_blck_size
}

inline bool isQuantized(GgmlType type) {
    return ggmlTypeTraits(type).quantized; // ggml_is_quantized
}

// ggml_nelements.
inline std::int64_t elements(const graph::Tensor& tensor) {
    return tensor.ne[0] * tensor.ne[1] * tensor.ne[2] * tensor.ne[3];
}

// ggml_nrows.
inline std::int64_t rows(const graph::Tensor& tensor) {
    return tensor.ne[1] * tensor.ne[2] * tensor.ne[3];
}

// ggml_row_size: the bytes of `count` values of a type.
inline std::uint64_t rowSize(GgmlType type, std::int64_t count) {
    return typeSize(type) * static_cast<std::uint64_t>(count) / static_cast<std::uint64_t>(blockSize(type));
}

// ggml_are_same_shape.
inline bool sameShape(const graph::Tensor& a, const graph::Tensor& b) {
    return a.ne == b.ne;
}

// ggml.c ggml_is_contiguous_m_n: dimensions 1..m may have any stride, dimensions m+1..n-1 must be
// packed (a dimension of one element never breaks it), and the first dimension's values must be
// packed unless it is a single block.
inline bool isContiguousMN(const graph::Tensor& tensor, int m, int n) {
    std::uint64_t next = typeSize(tensor.type);
    if (tensor.ne[0] != blockSize(tensor.type) && tensor.nb[0] != next) {
        return false;
    }
    next *= static_cast<std::uint64_t>(tensor.ne[0] / blockSize(tensor.type));
    for (int i = 1; i < n; ++i) {
        const auto d = static_cast<std::size_t>(i);
        if (i > m) {
            if (tensor.ne[d] != 1 && tensor.nb[d] != next) {
                return false;
            }
            next *= static_cast<std::uint64_t>(tensor.ne[d]);
        } else {
            next = static_cast<std::uint64_t>(tensor.ne[d]) * tensor.nb[d];
        }
    }
    return true;
}

inline bool isContiguous(const graph::Tensor& tensor) { // ggml_is_contiguous (_0)
    return isContiguousMN(tensor, 0, 4);
}
inline bool isContiguous1(const graph::Tensor& tensor) { // ggml_is_contiguous_1
    return isContiguousMN(tensor, 1, 4);
}
inline bool isContiguous2(const graph::Tensor& tensor) { // ggml_is_contiguous_2
    return isContiguousMN(tensor, 2, 4);
}
inline bool isContiguousTo3(const graph::Tensor& tensor) { // ggml_is_contiguous_to_3
    return isContiguousMN(tensor, 0, 3);
}

// ggml_is_contiguous_rows: each row's values are packed.
inline bool isContiguousRows(const graph::Tensor& tensor) {
    return tensor.ne[0] == blockSize(tensor.type) || tensor.nb[0] == typeSize(tensor.type);
}

// ggml_get_op_params_f32: the float an op keeps in op_params[i] (FLASH_ATTN_EXT's max_bias in [1]).
inline float opParamFloat(const graph::Tensor& tensor, std::size_t i) {
    float value = 0.0f;
    std::memcpy(&value, &tensor.opParams[i], sizeof(value));
    return value;
}

// The base a view reads (view_src; ggml keeps the root), or the tensor itself.
inline graph::TensorId baseOf(const graph::ComputeGraph& graph, graph::TensorId id) {
    return graph[id].isView() ? graph[id].viewSource : id;
}

// Flash attention's "V is a view of K" (ggml-cuda fattn-common.cuh
// ggml_cuda_flash_attn_ext_get_f16_extra_data, ggml-metal-ops.cpp
// ggml_metal_op_flash_attn_ext_v_is_view_of_k): V views K itself, or the same memory at the same
// offset (MLA, where V is the first values of each K row).
inline bool valueIsViewOfKey(const graph::ComputeGraph& graph, graph::TensorId k, graph::TensorId v) {
    const graph::Tensor& key = graph[k];
    const graph::Tensor& value = graph[v];
    return value.isView() && (value.viewSource == k || (value.viewSource == key.viewSource && key.isView() &&
                                                        value.viewOffset == key.viewOffset));
}

// get_op_batch_size of ggml-cuda.cu and ggml-vulkan.cpp (the same rule in each): the rows an op
// works on, as offload_op weighs them against GGML_OP_OFFLOAD_MIN_BATCH. GET_ROWS never: fetching
// rows of a host weight is not worth the copy.
inline std::int64_t opBatchSize(const graph::Tensor& op) {
    switch (op.op) {
    case graph::GgmlOp::GetRows:
        return 0;
    case graph::GgmlOp::MulMat:
        return op.ne[1];
    case graph::GgmlOp::MulMatId:
    case graph::GgmlOp::Rope:
    case graph::GgmlOp::RopeBack:
        return op.ne[2];
    default:
        return rows(op); // ggml_nrows
    }
}

} // namespace llamafit::scheduler::layout

#pragma once
// The Hadamard rotation llama.cpp 0.7.0 (b11669) applies to a quantized K or V cache: each KV
// cache adds a rotation matrix to the graph inputs (llama-kv-cache.cpp build_input_k_rot /
// build_input_v_rot), which the compute buffer holds. Used by computebuffer.cpp; bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/serversettings.h"

#include <cstdint>

namespace llamafit {

// The head sizes every layer of one cache shares (llama-kv-cache.cpp n_embd_head_k_all /
// n_embd_head_v_all); 0 when they differ, and for MLA (no rotation measured there).
struct KvRotationShape {
    std::uint32_t keyHeadDim = 0;
    std::uint32_t valueHeadDim = 0;
    bool operator==(const KvRotationShape&) const = default;
};

KvRotationShape kvRotationShape(const ModelInfo& model, bool swaCache);

// llama-kv-cache.cpp build_input_k_rot / build_input_v_rot: the side of the f32 rotation matrix
// for a quantized cache of this head size (0: no rotation). K: the largest power of two that
// divides the head size, from 64; V: 64. The graph builders (core/sizing/graph) add them as inputs.
std::uint32_t keyRotationSize(std::uint32_t keyHeadDim, GgmlType cacheTypeK);
std::uint32_t valueRotationSize(std::uint32_t valueHeadDim, GgmlType cacheTypeV);

// The rotation inputs of one cache for the cache types in `settings`.
std::uint64_t kvRotationBytes(const KvRotationShape& shape, const ServerSettings& settings);

// What the rotation does to one cache's graph: its matrices' bytes, and whether Q and K (a
// quantized K) and V and the attention's output (a quantized V) are rotated.
struct KvRotations {
    std::uint64_t bytes = 0;
    bool keys = false;
    bool values = false;
};
KvRotations kvRotations(const KvRotationShape& shape, const ServerSettings& settings);

} // namespace llamafit

#pragma once
// Qwen3 (Q and K normed per head, then RoPE) with every block on one Vulkan GPU, with flash
// attention: the GPU's compute buffer. In one whole-model split ggml-vulkan projects Q, V and K
// together; with a quantized cache llama.cpp 0.7.0 (b11669) also rotates Q and K (a quantized K)
// and V and the attention's output (a quantized V) by a Hadamard matrix (kvrotation.h), four more
// matrix products between the projections and flash attention, whose holes the closed form did not
// see (13 % low at -ctk q8_0 -ctv q8_0). The sequence was read from the server's own plans on
// lavapipe (scripts/alloc-plan/run-case.sh qwen3_ngl_all_np1_faon: "Vulkan0 compute buffer size =
// 26.01 MiB"; qwen3_ngl_all_np1_q8_0: 30.09); graph: src/models/qwen3.cpp, build_attn in
// src/llama-graph.cpp. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>

namespace llamafit {

struct NormedAttentionShape {
    std::uint64_t embd = 0;
    std::uint64_t queryValues = 0;   // n_head * head_dim per token
    std::uint64_t keyValues = 0;     // n_head_kv * head_dim
    std::uint64_t feedForward = 0;   // n_ff
    std::uint64_t maskCells = 0;     // the cache's cells per stream
    std::uint64_t rotationBytes = 0; // the rotation matrices among the graph inputs
    bool rotatedKeys = false;        // a quantized K: Q and K are rotated
    bool rotatedValues = false;      // a quantized V: V and the attention's output are rotated
    std::uint32_t blocks = 0;
};

// The shape of a qwen3 model with one cache; nullopt otherwise.
std::optional<NormedAttentionShape> normedAttentionShape(const ModelInfo& model, const KvPlan& kv,
                                                         const ServerSettings& settings);

// `tokens` = the reserve's token count; `outputs` = the output rows it asks for.
std::uint64_t normedAttentionDeviceBytes(const NormedAttentionShape& shape, std::uint64_t tokens,
                                         std::uint64_t outputs);

} // namespace llamafit

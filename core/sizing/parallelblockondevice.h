#pragma once
// Cohere 2 (attention and FFN side by side from one norm; RoPE in the sliding-window layers only)
// with every block on one Vulkan GPU, with flash attention: the GPU's compute buffer. ggml-vulkan
// reorders each split's nodes, and in one whole-model split Q, K and V are projected together and
// the FFN's gate and up products are computed before flash attention, so the FFN's three n_ff
// tensors meet the attention's (with several KV streams, -np N, flash attention comes first:
// cohere2_l4_ngl_all_np4, 118.02 MiB); the graph inputs of each cache die after its last layer. The
// sequence was read from the server's own plan on lavapipe (scripts/alloc-plan/run-case.sh
// cohere2_l4_ngl_all: "Vulkan0 compute buffer size = 136.02 MiB"; with a q8_0 cache's rotations,
// cohere2_l4_ngl_all_np1_q8_0: 144.18); graph:
// src/models/cohere2-iswa.cpp. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct ParallelBlockShape {
    std::uint64_t embd = 0;
    std::uint64_t queryValues = 0;        // n_head * head_dim per token
    std::uint64_t keyValues = 0;          // n_head_kv * head_dim
    std::uint64_t feedForward = 0;        // n_ff
    std::vector<std::uint64_t> maskCells; // per cache (KvPlan order): cells per stream
    std::vector<std::size_t> layerCache;  // per block: its cache
    std::vector<bool> layerRoped;         // per block: RoPE on Q and K
    std::uint64_t rotationBytes = 0;      // per cache: a quantized cache's rotation matrices
    bool rotatedKeys = false;             // a quantized K: Q and K are rotated (kvrotation.h)
    bool rotatedValues = false;           // a quantized V: V and the attention's output are rotated
    bool attentionFirst = false;          // several streams (-np N): flash attention comes before the FFN's
                                          // gate and up, and the output projection before ffn_out
    // Without flash attention, where the GPU refuses KQ's size: Q leaves for the CPU, which attends over the
    // cache, and the permuted result comes back; the GPU holds no mask, and a cache's row indices (one V
    // index per value) arrive with the split before its first layer (cohere2_l4_ngl_all_np1_faoff: 128.01
    // MiB).
    bool kqOnCpu = false;
    std::uint64_t valueRow = 0; // n_head_kv * head_dim_v
};

// The shape of a cohere2 model whose layers all have a KV cache, with flash attention or with KQ on the
// CPU (`kqOnCpu`); nullopt otherwise, and for a quantized cache over several streams or without flash
// attention (not read from a plan).
std::optional<ParallelBlockShape> parallelBlockShape(const ModelInfo& model, const KvPlan& kv,
                                                     const ServerSettings& settings, bool kqOnCpu = false);

// `tokens` = the reserve's token count; `outputs` = the output rows, to which the last block's FFN
// is cut.
std::uint64_t parallelBlockDeviceBytes(const ParallelBlockShape& shape, std::uint64_t tokens,
                                       std::uint64_t outputs);

} // namespace llamafit

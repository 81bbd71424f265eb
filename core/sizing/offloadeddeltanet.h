#pragma once
// The first GPU's compute buffer when a Qwen3.5 MoE model (qwen35moe: gated delta-net blocks, a gated
// attention block every few, routed experts beside a shared expert) keeps its blocks in host memory (-ngl 0,
// batches of 32 tokens or more) and the GPU refuses its expert tensors (over its storage-buffer range, as
// lavapipe's 128 MiB). Op offload copies each other host weight in just before its op and frees it after
// (offloadedattention.h). The delta net runs on the GPU over a copy of the block's state; the attention
// block attends on the GPU over copies of its layer's whole K and V (flash attention; the positions and the
// KQ mask come over at their first use and stay); the CPU runs the experts, whose n_used outputs come back
// as one copy to be weighted and summed. Read tensor by tensor from the server's own plans on lavapipe
// (scripts/alloc-plan/run-case.sh qwen35moe_l8_ngl0_np1: "Vulkan0 compute buffer size = 65.00 MiB";
// Qwen3-Next's fused projections, qwen3next_l8_ngl0_np1: 103.50).
// Graphs: src/models/qwen35moe.cpp, delta-net-base.cpp, build_moe_ffn in src/llama-graph.cpp. Internal
// to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/deltanetondevice.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// The bytes of one host block's weights as copied to the GPU; 0 where the block has no such tensor.
struct DeltaNetBlockWeights {
    std::uint64_t attentionNorm = 0;
    // Delta net
    std::uint64_t qkv = 0;       // attn_qkv (Qwen3-Next: ssm_in, Q, K, V and z)
    std::uint64_t betaAlpha = 0; // Qwen3-Next: ssm_ba
    std::uint64_t conv = 0;      // ssm_conv1d
    std::uint64_t alpha = 0;     // ssm_alpha
    std::uint64_t dtBias = 0;    // ssm_dt.bias
    std::uint64_t decay = 0;     // ssm_a
    std::uint64_t beta = 0;      // ssm_beta
    std::uint64_t norm = 0;      // ssm_norm
    std::uint64_t gate = 0;      // attn_gate
    std::uint64_t output = 0;    // ssm_out
    // Gated attention
    std::uint64_t query = 0; // attn_q: Q and its gate
    std::uint64_t queryNorm = 0;
    std::uint64_t key = 0;
    std::uint64_t keyNorm = 0;
    std::uint64_t value = 0;
    std::uint64_t attentionOutput = 0;
    // The FFN
    std::uint64_t postAttentionNorm = 0;
    std::uint64_t router = 0; // ffn_gate_inp
    std::uint64_t sharedGate = 0, sharedUp = 0, sharedDown = 0;
    std::uint64_t sharedRouter = 0; // ffn_gate_inp_shexp
};

struct OffloadedDeltaNet {
    DeltaNetOnDeviceShape shape;
    std::vector<DeltaNetBlockWeights> hostBlocks; // the leading blocks, in host memory
    std::uint32_t deviceBlocks = 0;               // the blocks after them, on the GPU
    std::uint64_t keyCache = 0, valueCache = 0;   // an attention layer's K and V cache tensors
    std::uint64_t cells = 0;                      // the KV cache's cells (the KQ mask's columns)
    // Without flash attention KQ, soft_max and KQV run on the GPU too, over copies of the layer's K and
    // V and the f32 mask, which the first (host) attention block copies and the last frees
    // (qwen35moe_l8_ngl0_np1_faoff: "Vulkan0 compute buffer size = 193.00 MiB", its 128 MiB KQ on top;
    // _ngl_part_np1_faoff: 181.00).
    bool flashAttention = true;
};

// The shape of a qwen35moe model whose leading blocks (at least one) sit in host memory and the rest on one
// GPU, or of a qwen3next model with every block in host memory, with flash attention, when the GPU refuses
// its experts (`expertsOnCpu`); nullopt otherwise. Without flash attention: qwen35moe whose GPU takes
// KQ's size (`kqRefused` false) and whose first attention block is a host one.
std::optional<OffloadedDeltaNet> offloadedDeltaNet(const ModelInfo& model, const KvPlan& kv,
                                                   const LayerPlacement& layers, bool flashAttention,
                                                   bool expertsOnCpu, bool kqRefused = true);

// `outputs` = the output rows the reserve asks for.
std::uint64_t offloadedDeltaNetBytes(const OffloadedDeltaNet& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit

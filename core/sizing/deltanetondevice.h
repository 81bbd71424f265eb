#pragma once
// A Qwen3.5 MoE or Qwen3-Next model (gated delta-net blocks, a gated attention block every few,
// routed experts beside a shared expert) whose blocks all sit on one Vulkan GPU that refuses the expert
// tensors (over its storage-buffer range, as lavapipe's 128 MiB): the GPU's compute buffer. The CPU runs each
// block's experts, so the scheduler (ggml-backend.cpp ggml_backend_sched_split_graph) splits the graph there
// and every block's n_used expert outputs come back as one copy at the start of the next split, with that
// split's other inputs (the attention layer's positions, K/V row indices and KQ mask come with the expert
// outputs of the block before the first attention block). Where that 32 MiB-scale copy leaves holes decides
// the peak, which the closed form missed by up to 25 %. The sequence was read tensor by tensor from the
// server's own plans on lavapipe (scripts/alloc-plan/run-case.sh qwen35moe_l8_ngl_all_np1_faon,
// qwen3next_l8_ngl_all_np1_faon); graphs: src/models/qwen35moe.cpp, qwen3next.cpp,
// delta-net-base.cpp, build_moe_ffn in src/llama-graph.cpp. The two differ in the delta net's
// projections and, through ggml-vulkan's node reordering, in where a few tensors fall. Flash
// attention only. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/recurrentcompute.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct DeltaNetOnDeviceShape {
    RecurrentBlockShape block;           // the delta-net geometry
    std::vector<bool> attentionBlocks;   // per block: a gated attention block (else delta net)
    std::uint64_t heads = 0;             // n_head of the attention blocks
    std::uint64_t queryValues = 0;       // n_head * head_dim per token
    std::uint64_t keyValues = 0;         // n_head_kv * head_dim
    std::uint64_t positionsPerToken = 4; // M-RoPE: four positions per token
    std::uint64_t experts = 0;           // n_expert
    std::uint64_t expertsUsed = 0;       // n_expert_used
    std::uint64_t sharedFeedForward = 0; // the shared expert's n_ff
    bool expertSumFirst = false;         // the experts' outputs are summed before the shared expert runs
                                         // (Qwen3-Next's node order on Vulkan)
};

// The shape for a qwen35moe or qwen3next model; nullopt for anything else.
std::optional<DeltaNetOnDeviceShape> deltaNetOnDeviceShape(const ModelInfo& model);

// `cells` = the KV cache's cells per stream (the KQ mask's columns). Without flash attention the
// GPU must accept KQ (cells x tokens x n_head f32; the caller checks its limits).
// `quantizedKey` (without flash attention): the K cache is quantized, so ggml-vulkan refuses KQ (its
// MUL_MAT takes a quantized first operand only when dims 0 and 1 are contiguous, which a K view of
// several KV heads is not: ggml-vulkan.cpp ggml_backend_vk_device_supports_op). Q and K are rotated
// (kvrotation.h; `keyRotationBytes`: the rotation matrix among the inputs), the CPU computes KQ and the
// product comes back for soft_max and KQV, with the f32 mask
// (qwen35moe_l8_ngl_all_np1_faoff_kq8_0: "Vulkan0 compute buffer size = 181.00 MiB").
struct QuantizedKeyAttention {
    bool quantizedKey = false;
    std::uint64_t keyRotationBytes = 0;
};
QuantizedKeyAttention quantizedKeyAttention(const ModelInfo& model, const DeltaNetOnDeviceShape& shape,
                                            const ServerSettings& settings, bool flashAttention,
                                            Backend backend);
std::uint64_t deltaNetOnDeviceComputeBytes(const DeltaNetOnDeviceShape& shape, std::uint32_t ubatchTokens,
                                           std::uint32_t sequences, std::uint64_t cells, bool flashAttention,
                                           const QuantizedKeyAttention& keys = {});
// What the host holds for that KQ on top of its inputs: the product; the copies of Q and K fit the
// rows the inputs leave free (qwen35moe_l8_ngl_all_np1_faoff_kq8_0: "Vulkan_Host compute buffer size =
// 154.27 MiB", 128 of it KQ).
std::uint64_t quantizedKeyHostBytes(const DeltaNetOnDeviceShape& shape, std::uint64_t reserveTokens,
                                    std::uint64_t cells);

} // namespace llamafit

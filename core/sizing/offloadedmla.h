#pragma once
// The first GPU's compute buffer while it runs the ops of DeepSeek-2's blocks left in host memory (op
// offload, offloadedattention.h) with flash attention: multi-head latent attention (Q absorbed into the
// latent space through attn_k_b, the compressed KV and its RoPE part concatenated, flash attention over
// copies of the layer's latent cache read as K and as V, attn_v_b back out), then the leading dense FFN or
// the routed experts, which the GPU refuses so that their outputs come back from the CPU, beside the shared
// experts. Each host weight is copied in for its one op. Read tensor by tensor from the server's own plan
// on lavapipe (scripts/alloc-plan/run-case.sh deepseek2_mla_ngl_part_ub1024: "Vulkan0 compute buffer
// size = 190.97 MiB", at block 0's dense FFN over its 22.71 MiB gate-weight copy's hole).
// Graph: src/models/deepseek2.cpp, build_moe_ffn in src/llama-graph.cpp. Internal to core/sizing
// (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// One host block's weights as copied to the GPU; 0 where the block has no such tensor.
struct MlaBlockWeights {
    std::uint64_t attentionNorm = 0;
    std::uint64_t query = 0, keyAbsorb = 0, kvCompress = 0, kvNorm = 0, valueAbsorb = 0, output = 0;
    std::uint64_t feedForwardNorm = 0;
    std::uint64_t gate = 0, up = 0, down = 0; // the leading dense FFN
    std::uint64_t router = 0;                 // ffn_gate_inp: routed experts instead
    std::uint64_t sharedGate = 0, sharedUp = 0, sharedDown = 0;
    bool last = false; // the model's final block: after its output projection only the output rows go on
};

struct OffloadedMla {
    std::uint64_t embd = 0;
    std::uint64_t heads = 0;
    std::uint64_t queryValues = 0;       // n_head * (nope + rope) per token
    std::uint64_t latent = 0;            // kv_lora_rank
    std::uint64_t rope = 0;              // the RoPE part of a key head
    std::uint64_t valueValues = 0;       // n_head * v_head_dim (MLA)
    std::uint64_t feedForward = 0;       // the dense FFN's n_ff
    std::uint64_t sharedFeedForward = 0; // n_expert_shared * n_ff_exp
    std::uint64_t experts = 0, expertsUsed = 0;
    std::uint64_t cells = 0;                 // the mask's columns
    std::uint64_t latentCache = 0;           // one layer's latent cache tensor
    std::vector<MlaBlockWeights> hostBlocks; // in graph order
};

// The shape of a deepseek2 model with MLA, flash attention, experts the GPU refuses (`expertsOnCpu`) and
// at least one block in host memory; nullopt otherwise.
std::optional<OffloadedMla> offloadedMla(const ModelInfo& model, const KvPlan& kv,
                                         const LayerPlacement& layers, bool flashAttention,
                                         bool expertsOnCpu);

// The peak over the graph start and the host blocks; `tokens` = the reserve's token count.
std::uint64_t offloadedMlaBytes(const OffloadedMla& shape, std::uint64_t tokens);

} // namespace llamafit

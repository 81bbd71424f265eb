#pragma once
// The first GPU's compute buffer while it runs the ops of blocks left in host memory (op offload:
// -ngl 0 or a partial -ngl, batches of 32 tokens or more) for the attention models whose graphs it
// follows: llama, qwen2, qwen3, qwen3moe, gemma2, gemma3, cohere2, gpt-oss. ggml-backend.cpp
// ggml_backend_sched_split_graph starts a new split at every node that reads a host weight ("the
// memory of the previously offloaded weights can be reused"), so each weight is copied into the
// compute buffer just before its op and freed just after. Flash attention, which the scheduler
// never keeps on the CPU, gets copies of the layer's whole K and V cache views; without it KQ,
// soft_max and KQV run on the GPU the same way (with an f32 mask) unless the GPU refuses KQ's
// size, and then only their result comes back from the CPU. The KQ masks and the positions are
// copied once and stay. Where those short-lived copies leave holes decides the peak, which a
// closed form missed by 8 MiB on most shapes; this replays the sequence through AllocatorReplay
// as read tensor by tensor from the server's own plans on lavapipe (scripts/alloc-plan/
// run-case.sh qwen3_ngl0_np1, qwen2_ngl0_np1, llama_l4_ngl0_np1, llama_l4_ngl0_np1_faoff,
// qwen3moe_l8_ngl0_np1, gemma2_l8_ngl0_np1, gemma3_ngl0_np1, gemma3_ngl0_np1_faoff,
// cohere2_l4_ngl0_np1, gpt_oss_l8_ngl0_np1 and _ngl_part_np1). Graphs: src/models/llama.cpp, qwen2.cpp,
// qwen3.cpp, qwen3moe.cpp (with build_moe_ffn in src/llama-graph.cpp), gemma2-iswa.cpp, gemma3.cpp,
// cohere2-iswa.cpp, openai-moe-iswa.cpp. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// The bytes of one host block's tensors as copied to the GPU; 0 = the model has no such tensor.
struct OffloadedBlockTensors {
    std::uint64_t attentionNorm = 0;
    std::uint64_t query = 0, queryBias = 0, queryNorm = 0;
    std::uint64_t key = 0, keyBias = 0, keyNorm = 0;
    std::uint64_t value = 0, valueBias = 0;
    std::uint64_t attentionOutput = 0;
    std::uint64_t feedForwardNorm = 0;
    std::uint64_t gate = 0, up = 0, down = 0;                     // dense feed-forward
    std::uint64_t router = 0;                                     // ffn_gate_inp: routed experts instead
    std::uint64_t routerBias = 0;                                 // gpt-oss: biases on the router, the
    std::uint64_t gateBias = 0, upBias = 0, downBias = 0;         // experts' three products,
    std::uint64_t outputBias = 0;                                 // the attention's output projection,
    std::uint64_t sinks = 0;                                      // and attention sinks
    std::uint64_t postAttentionNorm = 0, postFeedForwardNorm = 0; // Gemma 2 and 3
    std::uint64_t keyCache = 0, valueCache = 0;                   // the layer's K and V cache tensors
    std::size_t cache = 0; // which of maskCells the layer attends through
    bool last = false;     // the model's final layer: after the output projection only the output
                           // rows go on, too few for op offload
};

// Where the graph builders differ in ways the plan sees.
struct OffloadedGraphOrder {
    bool keyFirst = false;            // K is projected (and roped) before V (Gemma); else V, then K
    bool scaledInput = false;         // the embeddings are scaled before block 0, which frees the mixed
                                      // input's rows first (Gemma)
    bool scaleRows = false;           // an inp_scale_rows input (f32 per token) comes with them (Gemma 3)
    bool parallelFeedForward = false; // the FFN reads the attention's norm, and the attention's
                                      // output projection comes after it (Cohere 2)
};

struct OffloadedAttentionShape {
    std::uint64_t embd = 0;               // n_embd
    std::uint64_t heads = 0;              // n_head
    std::uint64_t queryValues = 0;        // n_head * head_dim_k per token
    std::uint64_t keyValues = 0;          // n_head_kv * head_dim_k
    std::uint64_t valueValues = 0;        // n_head_kv * head_dim_v
    std::uint64_t attendedValues = 0;     // n_head * head_dim_v: flash attention's output row
    std::uint64_t feedForward = 0;        // n_ff
    bool flashAttention = true;           // else KQ, soft_max and KQV: on the GPU with copies of K, V and
                                          // the f32 mask, or on the CPU where the GPU refuses KQ's size
    DeviceLimits limits;                  // the GPU's
    std::vector<std::uint64_t> maskCells; // per cache (KvPlan order): the KQ mask's columns
    OffloadedGraphOrder order;
    std::uint64_t experts = 0;                     // n_expert of the routed blocks
    std::uint64_t expertsUsed = 0;                 // n_expert_used
    std::uint64_t expertFeedForward = 0;           // n_ff of one expert (biased experts)
    std::vector<OffloadedBlockTensors> hostBlocks; // in graph order
};

// The shape when the model's graph is one this replay follows and some block sits in host memory:
// llama, qwen2, qwen3, qwen3moe, gemma2, gemma3, cohere2 or gpt-oss; nullopt otherwise. Routed experts are
// followed only where the GPU refuses their tensors (`expertsOnCpu`: over its storage-buffer
// limit, as on lavapipe), so that the CPU runs them and their outputs come back.
struct OffloadConditions {
    bool flashAttention = true;
    bool expertsOnCpu = false;
    DeviceLimits limits; // the GPU's
};
std::optional<OffloadedAttentionShape> offloadedAttentionShape(const ModelInfo& model, const KvPlan& kv,
                                                               const LayerPlacement& layers,
                                                               const OffloadConditions& conditions);

// The peak of the GPU's compute buffer over the graph start and the host blocks; `tokens` = the
// reserve's token count (reservetokens.h).
std::uint64_t offloadedAttentionComputeBytes(const OffloadedAttentionShape& shape, std::uint64_t tokens);

} // namespace llamafit

#pragma once
// One device's share of a dense attention model (qwen2, qwen3, gemma3)
// split by layer over several devices whose graph ggml schedules in llama.cpp's own node order: the
// RPC servers (ggml-rpc.cpp has no graph_optimize, and the client's ggml-alloc plans the remote
// buffer). Its compute buffer, written node by node with GraphReplay. At a split's start come the
// scheduler's copies of what the device reads from elsewhere (ggml-backend.cpp
// ggml_backend_sched_split_graph: `copies` of each, flagged as outputs so none is ever reused), then
// the device's blocks. The first device also holds the mixed-embedding DUP, which a SET_ROWS view
// keeps to the end; the output device runs the last block's FFN on the output rows and the logits.
//
// Why a replay: with pipeline copies the inputs below the blocks change which hole each block's
// FFN fits in, and a cache type decides between one block's peak and another's (qwen2 over two RPC
// servers: "RPC0[127.0.0.1:50052] compute buffer size = 72.55 MiB" with an f16 cache, 70.93 with
// q8_0, whose rotations move the peak to block 0). Read from the server's own plans
// (scripts/alloc-plan/run-case.sh with REC_DIR=tests/data/recorded/rpc-b11669); graph:
// src/models/qwen2.cpp, qwen3.cpp and gemma3.cpp, build_attn and build_attn_mha in src/llama-graph.cpp.
// Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct AttentionSplitShape {
    std::uint64_t embd = 0;
    std::uint64_t heads = 0;        // n_head
    std::uint64_t kvHeads = 0;      // n_head_kv
    std::uint64_t keyHeadDim = 0;   // n_embd_head_k
    std::uint64_t valueHeadDim = 0; // n_embd_head_v
    std::uint64_t feedForward = 0;  // n_ff
    std::uint64_t vocabulary = 0;
    bool normedHeads = false; // Q and K normed per head before RoPE (qwen3, gemma3)
    // Gemma 3's graph (src/models/gemma3.cpp): the token embeddings scaled per row at the start, Q
    // scaled after RoPE, K projected before V, and norms after the attention and after the FFN.
    bool gemma = false;
    bool flashAttention = false;
    std::vector<std::uint64_t> cells;    // per cache (KvPlan order): cells per stream
    std::vector<std::size_t> layerCache; // per block: its cache
    std::uint64_t streams = 1;           // KV streams: one per slot when -np splits the context
    bool rotatedKeys = false;            // a quantized K: Q and K rotated (kvrotation.h)
    bool rotatedValues = false;
};

// The shape of a qwen2 or qwen3 model (one full-attention cache) or a gemma3 model (a sliding-window
// and a full cache, no rotation); nullopt otherwise.
std::optional<AttentionSplitShape> attentionSplitShape(const ModelInfo& model, const KvPlan& kv,
                                                       const ServerSettings& settings, bool flashAttention);

// How a device's split begins: what the scheduler copies in from the device before it. Its inputs
// come in the order the split first reads them; a cache none of its blocks reads has none.
enum class SplitStart {
    // The device runs block 0: the host's token embeddings (and the mixed-embedding inputs).
    GraphStart,
    // The previous device's last block output (the residual). llama-context.cpp graph_get_cb pins
    // each block's first norm to the block's device when every layer is offloaded (measured pinned:
    // -ngl all, 99, 25 of 24 blocks, and unset).
    AfterDevice,
    // Unpinned -- in every graph --fit measures -- the scheduler runs the first norm with the
    // previous block: the normed rows first, the residual at its add ("RPC0[127.0.0.1:50053]#norm-13#0"
    // and "#l_out-12#0" among RPC1's inputs in llama-fit-params' plans).
    NormHandedOver,
    // Host blocks run before it on the CPU, up to the last weighted op: the device receives that
    // op's output and the residual and runs the last host block's add (qwen2 -ngl 10 over two RPC
    // servers: "#ffn_out-14#0" and "#ffn_inp-14#0"; gemma3: "#ffn_post_norm-10#0", "#sa_out-10#0").
    AfterHost,
};

// The blocks [firstBlock, endBlock) of one device.
struct AttentionSplit {
    std::uint32_t firstBlock = 0;
    std::uint32_t endBlock = 0;
    SplitStart start = SplitStart::GraphStart;
    bool outputHere = false;  // the output layer is on it (with the model's last block)
    std::uint32_t copies = 1; // the scheduler's copies of each input (pipelinecopies.h)
    bool handsNormOn = false; // the next device starts NormHandedOver: its first norm runs here
    // ggml-vulkan runs a block's Q, K and V projections one after another, before the rest of its
    // attention: ggml_vk_graph_optimize (ggml/src/ggml-vulkan/ggml-vulkan.cpp) pulls nodes that do
    // not depend on each other together. The RPC servers keep llama.cpp's node order. Read from
    // lavapipe's plans after one ggml-rpc-server (qwen3 -ts 1,1: "Vulkan0 compute buffer size =
    // 48.04 MiB"; llama with 3 and 1 blocks: 88.04 and 42.04).
    bool projectionsTogether = false;
};

// `tokens` = the reserve's token count; `outputs` = the output rows it asks for.
std::uint64_t attentionSplitDeviceBytes(const AttentionSplitShape& shape, const AttentionSplit& split,
                                        std::uint64_t tokens, std::uint64_t outputs);

} // namespace llamafit

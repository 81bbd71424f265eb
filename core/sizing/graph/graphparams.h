#pragma once
// GraphParams: what a model's graph depends on besides the model, at one of llama.cpp's reserves
// (src/llama-context.cpp sched_reserve / graph_reserve: the prompt graph, then the token graph):
// the ubatch's tokens, sequences and outputs, the KV cache's cells and streams and types, flash
// attention, and the buffer each weight and each layer's cache lives in. The builders
// (llmgraph.h, models/) read it; reserveShapes() says which reserves llama-server makes.
// A value type; counts in tokens and cells.

#include "core/gguf/ggmltype.h"
#include "core/sizing/graph/computegraph.h"
#include "core/sizing/llamabuild.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit::graph {

// One reserve's ubatch (llama_ubatch as graph_reserve makes it).
struct ReserveShape {
    std::uint32_t tokens = 1;
    std::uint32_t sequences = 1;
    std::uint32_t outputs = 1;
    bool operator==(const ReserveShape&) const = default;
};

// llama-context.cpp sched_reserve: the prompt graph (n_ubatch tokens, rounded up to a multiple of
// the sequences, "making n_tokens a multiple of n_seqs"), then the token graph (one token per
// sequence); `outputs` is cparams.n_outputs_max (llama-server: one per slot; llama.cpp's default,
// which llama-fit-params keeps: n_batch), of which each reserve holds at most its tokens. The
// prompt graph is reserved again after the token graph, with the same result.
std::vector<ReserveShape> reserveShapes(std::uint32_t ubatchTokens, std::uint32_t sequences,
                                        std::uint32_t outputs);

// One LoRA adapter's pair for a model weight (src/llama-adapter.cpp llama_adapter_lora_weight):
// lora_a [n_in, rank] and lora_b [rank, n_out] (token_embd's flipped: lora_a [rank, n_vocab],
// lora_b [rank, n_embd]), experts' with the expert count as ne[2]. llama_adapter_lora_init_impl
// puts both in the buffer type of the weight they adapt (a CPU extra type, the repacked one, falls
// back to plain CPU).
struct LoraTensor {
    std::string name;
    GgmlType type = GgmlType::F16;
    std::array<std::int64_t, 4> ne{1, 1, 1, 1};
    bool operator==(const LoraTensor&) const = default;
};
struct LoraWeight {
    std::size_t weight = 0; // the adapted weight: model.tensors[weight]
    LoraTensor a;
    LoraTensor b;
    Buffer buffer;
    bool operator==(const LoraWeight&) const = default;
};

struct GraphParams {
    ReserveShape reserve;
    // The llama.cpp build whose graph is built: the builders follow its changes (llamabuild.h).
    std::uint32_t llamaBuild = kReferenceLlamaBuild;
    std::uint32_t kvCells = 0;    // per stream; a reserve attends to the whole cache
    std::uint32_t kvSwaCells = 0; // the sliding-window cache's cells per stream
    std::uint32_t kvStreams = 1;  // 1 with a unified cache, else one per sequence
    bool flashAttention = true;
    // llama_kv_cache's v_trans: V stored transposed, the cache having been created without flash
    // attention. -fa auto's probe (llama-context.cpp resolve_fused_ops) can turn flash attention off
    // after the cache exists, V then staying in rows.
    bool transposedValueCache = false;
    GgmlType cacheTypeK = GgmlType::F16;
    GgmlType cacheTypeV = GgmlType::F16;
    // Where the weights and caches live: `weightBuffers[i]` for model.tensors[i], the tied output's
    // own copy of token_embd (none: the output reads token_embd itself), each layer's copy of the
    // RoPE factors (weightplacement.h TensorPlacements::ropeFactors), each layer's KV cache.
    std::vector<Buffer> weightBuffers;
    std::optional<Buffer> tiedOutputBuffer;
    std::vector<Buffer> ropeFactorBuffers;
    std::vector<Buffer> kvBuffers;
    // The scheduler backend each layer's device is (GPUs in order, then the CPU), and whether -ngl
    // asks for every layer and the output: llama-context.cpp graph_get_cb pins each layer's "norm"
    // nodes to that backend for small batches (under 32 tokens) or such a "full offload".
    std::vector<int> layerBackends;
    bool fullOffload = false;
    // -nkvo: the caches stay in host memory and, without flash attention, the attention's output
    // runs on the CPU backend (`cpuBackend`, the last one).
    bool offloadKqv = true;
    int cpuBackend = 0;
    // The recurrent state (llama-memory-recurrent.cpp): `rsCells` cells (mem_size, one per
    // sequence; a reserve reads all of them, n_rs), `rsRows` rows per layer's r and s tensors
    // (mem_size * (1 + n_rs_seq)), and each layer's buffer (the device of its layer, as the KV cache).
    std::uint32_t rsCells = 0;
    std::uint32_t rsRows = 0;
    std::vector<Buffer> rsBuffers;
    // The LoRA adapters in the context (llama-context.cpp set_adapters_lora: those of a non-zero
    // scale), adapter by adapter, each one's pairs in its file's order; empty without adapters.
    // llm_graph_context::build_lora_mm adds a branch per pair of the weight it multiplies by.
    std::vector<LoraWeight> loraWeights;
    bool operator==(const GraphParams&) const = default;
};

} // namespace llamafit::graph

#pragma once
// Compute-buffer peak of a recurrent block (Mamba-1, Mamba-2, gated delta net, RWKV-7): the
// tensors llama.cpp's graph builder makes for the first block, replayed through ggml-alloc's
// best-fit allocator (allocatorreplay.h). The replay sees what a closed form cannot: per-slot
// state copies that land on top of the buffer or in a hole depending on n_ubatch and the slot
// count. Worked out by computebuffer.cpp; checked against the CPU backend of llama-server 0.7.0
// (b11669) allocation plans. Known gap: in a hybrid the second recurrent block, placed in the
// holes of the FFN before it, can peak up to 2 % higher at n_ubatch >= 768 (not replayed).
// Internal to core/sizing; bytes.

#include "core/model/modelinfo.h"

#include <cstdint>

namespace llamafit {

enum class RecurrentBlockKind : std::uint8_t {
    None,              // no recurrent block replayed (the closed form in computebuffer.cpp)
    Mamba1,            // build_mamba_layer: mamba, jamba
    Mamba2,            // build_mamba2_layer: mamba2, granitehybrid, nemotron_h, falcon-h1
    DeltaNet,          // qwen35.cpp / qwen35moe.cpp: separate qkv and z projections
    DeltaNetFusedQkvz, // qwen3next.cpp: one qkvz projection, split and concatenated again
    Rwkv7,             // rwkv7.cpp
};

// What the replay reads from the model, in values (floats) unless told. Worked out once per model.
struct RecurrentBlockShape {
    RecurrentBlockKind kind = RecurrentBlockKind::None;
    std::uint64_t embd = 0;
    std::uint64_t inner = 0;      // d_inner; delta net: n_v_heads * head_v_dim
    std::uint64_t state = 0;      // d_state; delta net: head_k_dim
    std::uint64_t groups = 0;     // n_group; delta net: n_k_heads
    std::uint64_t heads = 0;      // Mamba-2 heads (ssm.time_step_rank); delta net: n_v_heads
    std::uint64_t convKernel = 0; // d_conv
    std::uint64_t dtRank = 0;     // Mamba-1 dt rank
    bool normedDtBc = false;      // Jamba: RMS norms on dt, B and C
    // Mamba blocks replayed in a row: 2 for a plain Mamba / Mamba-2 stack, whose second block can
    // peak higher in the holes the first leaves (n_ubatch >= 1024); 1 for hybrids, whose next
    // recurrent block follows an FFN or attention block the replay does not model.
    std::uint32_t layers = 1;
    // Falcon-H1 runs attention beside the SSM in every layer; its output waits for the SSM.
    std::uint64_t parallelQueryValues = 0; // n_head * head_dim
    std::uint64_t parallelKvValues = 0;    // n_head_kv * head_dim
    // RWKV-7
    std::uint64_t headSize = 0;
    std::uint64_t decayLora = 0;
    std::uint64_t iclrLora = 0;
    std::uint64_t valueLora = 0;
    std::uint64_t gateLora = 0;
    std::uint64_t feedForward = 0;
    bool operator==(const RecurrentBlockShape&) const = default;
};

RecurrentBlockShape recurrentBlockShape(const ModelInfo& model);

// The block's peak above the graph inputs (token ids, masks, positions: computebuffer.cpp counts
// them), the slots of n_embd floats the graph start leaves included, like the closed form's
// widths. The graph is reserved with n_ubatch tokens rounded up to a multiple of the slots
// (llama-context.cpp graph_reserve) and one state per slot. `stateRowsPerSequence` is 1 + n_rs_seq:
// with MTP drafting the delta-net op also writes the state after each of the last n_rs_seq
// tokens, so a rejected draft can roll back (its output holds every row; other kinds: unmeasured).
std::uint64_t recurrentBlockBytes(const RecurrentBlockShape& shape, std::uint32_t ubatchTokens,
                                  std::uint32_t sequences, std::uint32_t stateRowsPerSequence = 1);

} // namespace llamafit

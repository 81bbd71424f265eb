#pragma once
// Mamba models whose blocks all sit on a Vulkan GPU: the GPU's compute buffer. Mamba-1: ggml-vulkan
// has no selective-scan kernel for Mamba-1's state size, so llama.cpp keeps blk.N.ssm_a in host
// memory and the scheduler runs each block's SSM_SCAN on the CPU backend
// (ggml/src/ggml-backend.cpp ggml_backend_sched_split_graph): the scan's inputs leave the GPU
// before it and its output comes back as two copies, the final states and y. The GPU's plan is
// the block sequence of mambareplay.cpp with those copies in it, replayed over every block
// (the last one picks the output rows), as read from the server's own plans on lavapipe
// (scripts/alloc-plan). Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// `blocks` = the model's block count; `outputs` = the logits rows the reserve asks for.
std::uint64_t mambaOneDeviceComputeBytes(const RecurrentBlockShape& shape, std::uint32_t blocks,
                                         std::uint32_t ubatchTokens, std::uint32_t sequences,
                                         std::uint32_t outputs);

// A Mamba-2 stack with every block on a Vulkan GPU, which scans Mamba-2 itself: pure (mamba2) or
// hybrid (granitehybrid: a gated FFN after every Mamba-2 or attention layer; nemotron_h: Mamba-2,
// attention and relu² FFN layers). The Mamba-2 block is mambareplay.cpp's in ggml-vulkan's node
// order: it reorders each split's nodes, so the first block differs from the rest, and a Mamba-2
// block's conv-state rows are taken in the layer before it unless that layer is a plain FFN. Read
// from the server's own plans on lavapipe (scripts/alloc-plan/run-case.sh mamba2_ngl_all:
// "Vulkan0 compute buffer size = 27.88 MiB", granitehybrid_ngl_all: 31.94,
// nemotron_h_l6_ngl_all: 156.73; and a whole 12-layer nemotron_h, 128.26, for the attention
// layers in between). Graphs: src/models/mamba-base.cpp, granite-hybrid.cpp, nemotron-h.cpp. With
// attention layers, flash attention only.
struct MambaTwoStack {
    enum class Layer : std::uint8_t { Mamba, Attention, FeedForward };
    RecurrentBlockShape ssm;
    std::vector<Layer> layers;
    bool feedForwardAfterEach = false; // a gated FFN closes every layer (granitehybrid)
    std::uint64_t feedForward = 0;     // n_ff of the FFNs (relu² up/down unless feedForwardAfterEach)
    std::uint64_t queryValues = 0;     // n_head * head_dim of the attention layers
    std::uint64_t keyValues = 0;       // n_head_kv * head_dim
    std::uint64_t maskCells = 0;       // the KV cache's cells per stream (0: no attention layers)
    // The embeddings are scaled before block 0 (granitehybrid): the mixed input's rows die first,
    // the state-copy ids come after the residual, block 0 takes its conv rows before ssm_in.
    bool scaledInput = false;
    // Without flash attention, where the GPU refuses KQ's size: Q leaves for the CPU and the permuted
    // result comes back; the GPU gets no mask, one V row index per value
    // (nemotron_h_l6_ngl_all_c16384_np4_faoff: 156.73 MiB).
    bool kqOnCpu = false;
    std::uint64_t valueRow = 0; // n_head_kv * head_dim_v
};

// The stack of a mamba2, granitehybrid or nemotron_h model; nullopt for anything else, and for a
// hybrid without flash attention unless the GPU refuses KQ (`kqRefused`).
std::optional<MambaTwoStack> mambaTwoStack(const ModelInfo& model, const KvPlan& kv, bool flashAttention,
                                           bool kqRefused = false);

// `outputs` = the output rows the reserve asks for.
std::uint64_t mambaTwoStackDeviceBytes(const MambaTwoStack& stack, std::uint32_t ubatchTokens,
                                       std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit

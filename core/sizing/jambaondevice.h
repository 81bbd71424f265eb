#pragma once
// Jamba with every block on a Vulkan GPU that refuses its experts (each expert tensor over the
// device's maxStorageBufferRange, as on lavapipe): the GPU's compute buffer. Jamba's layers are
// Mamba-1 or attention mixers, each followed by a dense gated FFN or a routed MoE. ggml-vulkan
// has no Mamba-1 scan (mambaondevice.h), so each Mamba block's scan runs on the CPU and its final
// states and y come back; the refused experts run on the CPU and their weighted outputs come
// back. Those CPU ops split the graph, and where a split starts decides where the next Mamba
// block's conv-state rows and the attention layer's inputs are taken. Read from the server's own
// plans on lavapipe (scripts/alloc-plan/run-case.sh jamba_l6_ngl_all: "Vulkan0 compute buffer
// size = 116.00 MiB"; the -fa off, -np 1/4 and -ub 1024 cases).
// Leading layers in host memory (-ngl 0 or a partial -ngl, op offload: offloadedattention.h): each of their
// weights is copied in for its one op; the CPU runs their scans and attention over the host caches, and the
// whole routed MoE of a host block that a host Mamba block follows (else only the experts, whose outputs
// come back to be weighted). The GPU's own layers follow as above; their state-copy ids, first conv rows and
// attention inputs arrive during the last host layer. Read from jamba_l6_ngl0_np1 and _ngl_part_np1 (-ngl 3:
// 131.50 MiB) and -ngl 2, 4 and 5 runs of the same shape (131.59, 131.59, 131.50).
// Graph: src/models/jamba.cpp, build_mamba_layer in src/models/mamba-base.cpp. Internal to core/sizing
// (gpureplays.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/offloadedmamba.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct JambaStack {
    struct Layer {
        bool attention = false; // the mixer: attention, else Mamba-1
        bool experts = false;   // the FFN: routed experts (refused), else dense and gated
    };
    RecurrentBlockShape ssm; // Mamba-1 with RMS norms on dt, B and C
    std::vector<Layer> layers;
    std::uint64_t feedForward = 0; // n_ff of the dense FFNs
    std::uint64_t expertCount = 0; // n_expert: the router's logits per token
    std::uint64_t expertsUsed = 0; // n_expert_used: the outputs that come back per token
    std::uint64_t queryValues = 0; // n_head * head_dim
    std::uint64_t keyValues = 0;   // n_head_kv * head_dim
    std::uint64_t valueRow = 0;    // n_head_kv * head_dim_v
    std::uint64_t maskCells = 0;   // the KV cache's cells per stream
    std::uint64_t valueCache = 0;  // one layer's V cache tensor
    bool flashAttention = true;
    std::vector<OffloadedLayerWeights> hostLayers; // the leading layers, in host memory
};

// The stack of a jamba model whose experts the GPU refuses, its first `hostLayers` layers in host memory
// and the rest on the GPU, or nullopt: another model, KQ without flash attention the GPU takes (not
// measured), or a layer order or a last host layer the plans did not show (an attention layer that
// follows a dense FFN, has experts itself or comes last; a last host layer with flash attention or a
// dense Mamba one before a GPU attention layer).
std::optional<JambaStack> jambaStack(const ModelInfo& model, const KvPlan& kv, bool flashAttention,
                                     bool expertsRefused, bool kqRefused, std::size_t hostLayers = 0);

// `outputs` = the output rows the reserve asks for.
std::uint64_t jambaDeviceBytes(const JambaStack& stack, std::uint32_t ubatchTokens, std::uint32_t sequences,
                               std::uint32_t outputs);

} // namespace llamafit

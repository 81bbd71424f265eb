#pragma once
// The first GPU's compute buffer when a Mamba-2 model keeps its leading blocks in host memory: -ngl 0 or a
// partial -ngl, batches of 32 tokens or more, so that the scheduler offloads their ops (offloadedattention.h
// says how each host weight is copied in just before its op and freed after it). A host block's state stays
// in host memory, so its SSM_SCAN runs on the CPU: dt leaves for it and y comes back as a copy, and the conv
// states come in as rows; a host attention layer's Q, K and V leave for the CPU, which attends over the host
// cache. The GPU's own layers follow in the scheduler's order for a split of their own (not the whole-model
// reorder of mambaondevice.h): the GPU's graph inputs arrive with the last host layer's output projection,
// and a Mamba-2 block's conv rows are taken by the layer before it unless that is a plain FFN. Read tensor
// by tensor from the server's own plans on lavapipe (scripts/alloc-plan/run-case.sh mamba2_ngl0_np1:
// "Vulkan0 compute buffer size = 21.21 MiB", mamba2_ngl_part_np1: 22.05; granitehybrid_ngl0_np1: 20.32 and
// granitehybrid_ngl_part_np1: 25.13, with attention and gated FFN layers; nemotron_h_l6_ngl0_np1: 173.25
// and nemotron_h_l6_ngl_part_np1: 175.73, with relu² FFN layers). Graphs: src/models/mamba-base.cpp
// build_mamba2_layer, granite-hybrid.cpp, nemotron-h.cpp. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/mambaondevice.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// The bytes of one host layer's weights as copied to the GPU; 0 where the layer has no such tensor.
struct OffloadedLayerWeights {
    std::uint64_t attentionNorm = 0;                // attn_norm: every layer's input norm
    std::uint64_t input = 0;                        // Mamba-2: ssm_in
    std::uint64_t conv = 0;                         // ssm_conv1d.weight
    std::uint64_t convBias = 0;                     // ssm_conv1d.bias
    std::uint64_t projection = 0;                   // Mamba-1: ssm_x (dt, B and C)
    std::uint64_t dt = 0;                           // Mamba-1: ssm_dt.weight
    std::uint64_t dtBias = 0;                       // ssm_dt.bias
    std::uint64_t dtNorm = 0, bNorm = 0, cNorm = 0; // Jamba: ssm_dt_norm, ssm_b_norm, ssm_c_norm
    std::uint64_t skip = 0;                         // ssm_d
    std::uint64_t norm = 0;                         // ssm_norm
    std::uint64_t output = 0;                       // ssm_out
    std::uint64_t query = 0, key = 0, value = 0, attentionOutput = 0; // attention layers
    std::uint64_t feedForwardNorm = 0;                                // a gated FFN after the layer
    std::uint64_t gate = 0, up = 0, down = 0;                         // (gate 0: relu² up/down)
    std::uint64_t router = 0;                                         // ffn_gate_inp: a routed MoE's
};

// A Mamba-2 model whose leading layers sit in host memory. With flash attention or not, the CPU
// attends over a host KV cache: Q, K and V leave for it and its output comes back.
struct OffloadedMambaTwo {
    MambaTwoStack stack;                           // the shape and every layer's kind
    std::vector<OffloadedLayerWeights> hostLayers; // the leading layers, in host memory
    std::uint32_t deviceLayers = 0;                // the layers after them, on the GPU
};

// The split of a mamba2, granitehybrid or nemotron_h model whose leading blocks (at least one) sit
// in host memory and the rest on one GPU; nullopt for any other model or placement.
std::optional<OffloadedMambaTwo> offloadedMambaTwo(const ModelInfo& model, const KvPlan& kv,
                                                   const LayerPlacement& layers);

// `outputs` = the output rows the reserve asks for.
std::uint64_t offloadedMambaTwoBytes(const OffloadedMambaTwo& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs);

// The bytes of block `il`'s weights as op offload copies them to the GPU (the Mamba replays share it:
// offloadedmambaone.h, offloadedfalcon.h).
OffloadedLayerWeights hostLayerWeights(const ModelInfo& model, std::size_t il);

// How many of the first `blocks` blocks lead in host memory before the rest on one GPU; nullopt when
// none does, or a host block follows a GPU block, or the blocks use several GPUs.
std::optional<std::size_t> leadingHostBlocks(const LayerPlacement& layers, std::size_t blocks);

} // namespace llamafit

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
#include "core/sizing/parallelmambaondevice.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// The bytes of one host layer's weights as copied to the GPU; 0 where the layer has no such tensor.
struct OffloadedLayerWeights {
    std::uint64_t attentionNorm = 0;                                  // attn_norm: every layer's input norm
    std::uint64_t input = 0;                                          // Mamba-2: ssm_in
    std::uint64_t conv = 0;                                           // ssm_conv1d.weight
    std::uint64_t convBias = 0;                                       // ssm_conv1d.bias
    std::uint64_t projection = 0;                                     // Mamba-1: ssm_x (dt, B and C)
    std::uint64_t dt = 0;                                             // Mamba-1: ssm_dt.weight
    std::uint64_t dtBias = 0;                                         // ssm_dt.bias
    std::uint64_t skip = 0;                                           // ssm_d
    std::uint64_t norm = 0;                                           // ssm_norm
    std::uint64_t output = 0;                                         // ssm_out
    std::uint64_t query = 0, key = 0, value = 0, attentionOutput = 0; // attention layers
    std::uint64_t feedForwardNorm = 0;                                // a gated FFN after the layer
    std::uint64_t gate = 0, up = 0, down = 0;                         // (gate 0: relu² up/down)
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

// Mamba-1 (mamba) with its leading blocks in host memory. ggml-vulkan has no Mamba-1 scan
// (mambaondevice.h), so every block's scan runs on the CPU: a host block's y comes back, a GPU
// block's y and final states. The residual add runs in place into the residual. Read from the
// plans of mamba_ngl0_np1 ("Vulkan0 compute buffer size = 16.52 MiB") and mamba_ngl_part_np1
// (-ngl 12: 18.13). Graph: src/models/mamba-base.cpp build_mamba_layer.
struct OffloadedMambaOne {
    RecurrentBlockShape ssm;
    std::vector<OffloadedLayerWeights> hostLayers; // the leading blocks, in host memory
    std::uint32_t deviceLayers = 0;                // the blocks after them, on the GPU
};
std::optional<OffloadedMambaOne> offloadedMambaOne(const ModelInfo& model, const LayerPlacement& layers);
std::uint64_t offloadedMambaOneBytes(const OffloadedMambaOne& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs);

// Falcon-H1 (falcon-h1: attention beside Mamba-2 in every layer, then a gated FFN) with every block in
// host memory. The CPU runs each block's flash attention and scan; the GPU projects Q, K and V (RoPE on
// it), runs ssm_in with attn_norm's weight held for it, the conv and the gate, and takes the
// attention's output back before its output projection, which waits through the SSM. Read from the plan
// of falcon_h1_ngl0_np1 ("Vulkan0 compute buffer size = 25.05 MiB"). Graph: src/models/falcon-h1.cpp.
struct OffloadedFalcon {
    ParallelMambaShape shape;                      // the shape as fully offloaded (parallelmambaondevice.h)
    std::vector<OffloadedLayerWeights> hostLayers; // every block (ffn_norm in feedForwardNorm)
};
// nullopt unless the model is falcon-h1 with every block in host memory.
std::optional<OffloadedFalcon> offloadedFalcon(const ModelInfo& model, const KvPlan& kv,
                                               const LayerPlacement& layers);
std::uint64_t offloadedFalconBytes(const OffloadedFalcon& split, std::uint32_t ubatchTokens,
                                   std::uint32_t sequences, std::uint32_t outputs);

// The host's compute buffer while the CPU scans the Mamba blocks whose state is in host memory (any
// Mamba-2 model: mamba2, granitehybrid, nemotron_h, falcon-h1; Mamba-1), op offload or not: the graph
// inputs (tokens, embeddings, the state-copy ids, one KV cache's inputs when `cacheCells` > 0, the
// output ids and the embedding rows the GPU takes), then copies of the scan's x, dt, B and C, and
// the scan's y and final states. Read from the host plans of mamba2_ngl0_np1 ("Vulkan_Host compute
// buffer size = 21.74 MiB", the same with -ngl 12), granitehybrid_ngl0_np1 (25.75),
// nemotron_h_l6_ngl0_np1 (123.94), mamba_ngl0_np1 (13.60, the same with -ngl 12) and
// falcon_h1_ngl_part_np1 (23.25, with its attention on the CPU beside the scan), whose peaks
// are all at the first scan. `valueRowValues`: the V row width the V store indexes without flash
// attention.
struct HostScanInputs {
    std::uint64_t cacheCells = 0; // the KV cache's cells; 0 without attention layers
    std::uint64_t valueRowValues = 0;
    bool flashAttention = true;
};
std::uint64_t hostMambaScanBytes(const RecurrentBlockShape& ssm, std::uint32_t ubatchTokens,
                                 std::uint32_t sequences, std::uint32_t outputs,
                                 const HostScanInputs& inputs);

} // namespace llamafit

#pragma once
// The first GPU's compute buffer when LFM2 (short gated convolutions and attention layers, a gated FFN
// after each) keeps its leading layers in host memory (-ngl 0 or a partial -ngl; op offload: every host
// weight is copied in for its one op, offloadedattention.h). A host convolution takes its conv states as
// copied rows; a host attention layer's Q, K and V leave for the CPU, which attends over the host cache
// and hands the output back. With a partial -ngl the probe has turned flash attention off
// (flashattentionprobe.h), and the last host layer, an attention one, runs KQ, soft_max and KQV on the
// GPU over copies of its K, its V made contiguous and the f32 mask, which the GPU's own attention layers
// then read; the GPU's layers follow in their order, each convolution taking its conv rows in the
// attention layer before it. Read tensor by tensor from the server's own plans on lavapipe
// (scripts/alloc-plan/run-case.sh lfm2_ngl0_np1: "Vulkan0 compute buffer size = 35.78 MiB";
// lfm2_ngl_part_np1, -ngl 8: 157.06). Graph: src/models/lfm2.cpp. Internal to core/sizing
// (gpureplays.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// One host layer's weights as copied to the GPU; 0 where the layer has no such tensor.
struct Lfm2LayerWeights {
    std::uint64_t attentionNorm = 0;
    std::uint64_t input = 0, conv = 0, output = 0; // shortconv in_proj, conv, out_proj
    std::uint64_t query = 0, queryNorm = 0;        // attention
    std::uint64_t key = 0, keyNorm = 0, value = 0;
    std::uint64_t attentionOutput = 0;
    std::uint64_t feedForwardNorm = 0, gate = 0, up = 0, down = 0;
};

struct OffloadedLfm2 {
    std::uint64_t embd = 0;
    std::uint64_t feedForward = 0;
    std::uint64_t queryValues = 0, keyValues = 0, heads = 0;
    std::uint64_t convStates = 0;               // one slot's conv-state values (n_embd_r)
    std::uint64_t keyCache = 0, valueCache = 0; // one attention layer's K and V cache tensors
    std::uint64_t cells = 0;                    // the KV cache's cells (the KQ mask's columns)
    bool flashAttention = true;
    std::vector<bool> attention;              // per layer: attention, else a short convolution
    std::vector<Lfm2LayerWeights> hostLayers; // the leading layers, in host memory
};

// The split of an lfm2 model whose leading layers (at least one) sit in host memory and the rest on one
// GPU, or nullopt: another model, or a placement the plans did not show (GPU layers with flash
// attention, a last host layer that is no attention layer, two GPU convolutions in a row, a last
// attention layer).
std::optional<OffloadedLfm2> offloadedLfm2(const ModelInfo& model, const KvPlan& kv,
                                           const LayerPlacement& layers, bool flashAttention);

// `outputs` = the output rows the reserve asks for.
std::uint64_t offloadedLfm2Bytes(const OffloadedLfm2& split, std::uint32_t ubatchTokens,
                                 std::uint32_t sequences, std::uint32_t outputs);

// The host's compute buffer then: the graph inputs, the token lookup and the mixed path's rows with the
// DUP it keeps to the end (the first layer is the host's, so the lookup's rows stay there), then the first
// host attention layer on the CPU over copies of its Q, K and V: flash attention, or KQ over V made
// contiguous (lfm2_ngl0_np1: "Vulkan_Host compute buffer size = 14.02 MiB", at the DUP;
// lfm2_ngl_part_np1: 150.02, its 128 MiB KQ above the DUP and V).
std::uint64_t offloadedLfm2HostBytes(const OffloadedLfm2& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit

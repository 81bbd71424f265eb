#pragma once
// The first GPU's compute buffer of Falcon-H1 (falcon-h1: attention beside Mamba-2 in every layer, then
// a gated FFN) with every block in host memory (op offload: offloadedmamba.h). The CPU runs each block's
// flash attention and scan; the GPU projects Q, K and V (RoPE on it), runs ssm_in with attn_norm's weight
// held for it, the conv and the gate, and takes the attention's output back before its output projection,
// which waits through the SSM. Read from the plan of falcon_h1_ngl0_np1 ("Vulkan0 compute buffer size = 25.05
// MiB"). Graph: src/models/falcon-h1.cpp.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/offloadedmamba.h"
#include "core/sizing/parallelmambaondevice.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct OffloadedFalcon {
    ParallelMambaShape shape;                      // the shape as fully offloaded (parallelmambaondevice.h)
    std::vector<OffloadedLayerWeights> hostLayers; // every block (ffn_norm in feedForwardNorm)
};
// nullopt unless the model is falcon-h1 with every block in host memory.
std::optional<OffloadedFalcon> offloadedFalcon(const ModelInfo& model, const KvPlan& kv,
                                               const LayerPlacement& layers);
std::uint64_t offloadedFalconBytes(const OffloadedFalcon& split, std::uint32_t ubatchTokens,
                                   std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit

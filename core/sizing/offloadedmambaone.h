#pragma once
// The first GPU's compute buffer of Mamba-1 (mamba) with its leading blocks in host memory (op offload:
// offloadedmamba.h). ggml-vulkan has no Mamba-1 scan
// (mambaondevice.h), so every block's scan runs on the CPU: a host block's y comes back, a GPU
// block's y and final states. The residual add runs in place into the residual. Read from the
// plans of mamba_ngl0_np1 ("Vulkan0 compute buffer size = 16.52 MiB") and mamba_ngl_part_np1
// (-ngl 12: 18.13). Graph: src/models/mamba-base.cpp build_mamba_layer.

#include "core/model/modelinfo.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/offloadedmamba.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct OffloadedMambaOne {
    RecurrentBlockShape ssm;
    std::vector<OffloadedLayerWeights> hostLayers; // the leading blocks, in host memory
    std::uint32_t deviceLayers = 0;                // the blocks after them, on the GPU
};
std::optional<OffloadedMambaOne> offloadedMambaOne(const ModelInfo& model, const LayerPlacement& layers);
std::uint64_t offloadedMambaOneBytes(const OffloadedMambaOne& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit

#pragma once
// The first GPU's compute buffer when RWKV-7 keeps every block in host memory (-ngl 0, op offload:
// offloadedattention.h): each host weight, down to the norms' biases and the lerp vectors, is copied in for
// its one op, and each block's token-shift and wkv state rows come over as copies, in the builder's own
// order (no ggml-vulkan reorder across the many small splits). The first block keeps its value as
// v_first, which the others mix in; the last runs its channel mix on the CPU (the output rows are too few
// for op offload). Read tensor by tensor from the server's own plan on lavapipe
// (scripts/alloc-plan/run-case.sh rwkv7_ngl0_np1: "Vulkan0 compute buffer size = 27.19 MiB", at block 1's
// wkv7; the closed form said 24.02). Graph: src/models/rwkv7.cpp,
// rwkv7-base.cpp. Internal to core/sizing (gpureplays.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

// One block's weights as copied to the GPU.
struct Rwkv7BlockWeights {
    std::uint64_t norm = 0, normBias = 0, channelNorm = 0, channelNormBias = 0;
    std::uint64_t lerps = 0, receptance = 0, decayDown = 0, decayUp = 0, decayBias = 0;
    std::uint64_t key = 0, iclrDown = 0, iclrUp = 0, iclrBias = 0, keyIclr = 0;
    std::uint64_t value = 0, valueDown = 0, valueUp = 0, valueBias = 0;
    std::uint64_t keyNormScale = 0, groupNorm = 0, groupNormBias = 0, bonus = 0;
    std::uint64_t gateDown = 0, gateUp = 0, output = 0;
    std::uint64_t channelLerp = 0, channelKey = 0, channelValue = 0;
};

struct OffloadedRwkv7 {
    RecurrentBlockShape shape;
    std::uint64_t embeddingNorm = 0, embeddingNormBias = 0; // ln0, before block 0
    std::vector<Rwkv7BlockWeights> blocks;
};

// An rwkv7 model with every block in host memory, or nullopt.
std::optional<OffloadedRwkv7> offloadedRwkv7(const ModelInfo& model, const LayerPlacement& layers);

std::uint64_t offloadedRwkv7Bytes(const OffloadedRwkv7& model, std::uint32_t ubatchTokens,
                                  std::uint32_t sequences);

} // namespace llamafit

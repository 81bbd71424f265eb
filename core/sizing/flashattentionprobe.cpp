#include "core/sizing/flashattentionprobe.h"

#include <algorithm>

namespace llamafit {

bool flashAttentionAfterProbe(const ModelInfo& model, const ServerSettings& settings,
                              const LayerPlacement& layers, bool resolved) {
    if (!resolved || settings.flashAttention != FlashAttention::Auto ||
        (model.architecture != "lfm2" && model.architecture != "jamba")) {
        return resolved;
    }
    // The last host block before the first GPU block.
    const std::size_t blocks = std::min<std::size_t>(model.trunkLayerCount(), layers.layerDevice.size());
    for (std::size_t il = 0; il + 1 < blocks && il < model.layers.size(); ++il) {
        if (layers.layerDevice[il] == kHostDevice && layers.layerDevice[il + 1] != kHostDevice) {
            return !model.layers[il].hasKv;
        }
    }
    return resolved;
}

} // namespace llamafit

// -fa auto after placement (core/sizing/flashattentionprobe.h) against what the real llama-server 0.7.0
// resolved on lavapipe for the LFM2 shape (tests/data/shapes/lfm2.json: attention at layers 2, 5, 8, 10,
// 12, 14 of 16), "resolve_fused_ops: Flash Attention enabled" or "... not supported, set to disabled".
#include "core/sizing/flashattentionprobe.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

// -ngl N on B blocks: the first B + 1 - N blocks stay in host memory.
LayerPlacement ngl(const ModelInfo& model, std::size_t gpuLayers) {
    LayerPlacement layers;
    const std::size_t host = model.layers.size() + 1 - gpuLayers;
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        layers.layerDevice.push_back(il < host ? kHostDevice : 0);
    }
    return layers;
}

TEST(FlashAttentionProbe, LfmLosesItWhenItsLastHostLayerAttends) {
    const ModelInfo lfm2 = test::interpretedShape("lfm2.json");
    ServerSettings autoFa;
    autoFa.flashAttention = FlashAttention::Auto;
    for (const std::size_t off : {8u, 11u, 14u}) {
        EXPECT_FALSE(flashAttentionAfterProbe(lfm2, autoFa, ngl(lfm2, off), true)) << "-ngl " << off;
    }
    for (const std::size_t on : {7u, 9u, 10u, 12u}) {
        EXPECT_TRUE(flashAttentionAfterProbe(lfm2, autoFa, ngl(lfm2, on), true)) << "-ngl " << on;
    }
    // -fa on runs no probe; -fa off stays off.
    ServerSettings forced;
    forced.flashAttention = FlashAttention::On;
    EXPECT_TRUE(flashAttentionAfterProbe(lfm2, forced, ngl(lfm2, 8), true));
    EXPECT_FALSE(flashAttentionAfterProbe(lfm2, autoFa, ngl(lfm2, 7), false));
}

TEST(FlashAttentionProbe, JambaLosesItTheSameWay) {
    // tests/data/shapes/jamba.json cut to 6 blocks, attention at layer 4: -ngl 2 leaves it the last host
    // layer ("layer 4 is assigned to device CPU but Flash Attention is assigned to device Vulkan0").
    const ModelInfo jamba = test::interpretedShape("jamba.json", 6);
    ServerSettings autoFa;
    autoFa.flashAttention = FlashAttention::Auto;
    EXPECT_FALSE(flashAttentionAfterProbe(jamba, autoFa, ngl(jamba, 2), true));
    for (const std::size_t on : {3u, 4u, 5u}) {
        EXPECT_TRUE(flashAttentionAfterProbe(jamba, autoFa, ngl(jamba, on), true)) << "-ngl " << on;
    }
}

TEST(FlashAttentionProbe, DenseModelsKeepIt) {
    const ModelInfo qwen3 = test::interpretedShape("qwen3.json");
    ServerSettings autoFa;
    autoFa.flashAttention = FlashAttention::Auto;
    EXPECT_TRUE(flashAttentionAfterProbe(qwen3, autoFa, ngl(qwen3, 14), true));
}

} // namespace
} // namespace llamafit

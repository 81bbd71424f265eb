// The GPU's compute buffer of LFM2 with its leading layers in host memory (core/sizing/offloadedlfm2.h)
// against llama-server 0.7.0's own on lavapipe, as logged in the recorded Vulkan matrix
// (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation plans
// (scripts/alloc-plan/run-case.sh; tests/data/shapes/lfm2.json: attention at layers 2, 5, 8, 10, 12, 14 of
// 16, short convolutions elsewhere).
#include "core/common/units.h"
#include "core/sizing/offloadedlfm2.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using test::leadingOnHost;

double deviceMiB(std::size_t hostLayers, bool flashAttention) {
    const test::SizedShape lfm2 = test::sizedShape("lfm2.json", std::nullopt, 1);
    const auto split =
        offloadedLfm2(lfm2.model, lfm2.kv, leadingOnHost(lfm2.model, hostLayers), flashAttention);
    EXPECT_TRUE(split.has_value()) << hostLayers << " host layers";
    return split ? toMiB(offloadedLfm2Bytes(*split, 512, 1, 1)) : 0.0;
}

TEST(OffloadedLfm2, HostLayersCopyEachWeightInForItsOp) {
    // lfm2_ngl0_np1: "Vulkan0 compute buffer size = 35.78 MiB", at layer 2's FFN (three 9 MiB products
    // above the 4.78 MiB gate-weight copy's hole); the closed form said 39.02.
    EXPECT_NEAR(deviceMiB(16, true), 35.78, 0.005);
}

TEST(OffloadedLfm2, TheLastHostAttentionLayerAttendsOnTheGpu) {
    // lfm2_ngl_part_np1 (-ngl 8: layers 0-8 on the host, flash attention off by the probe): layer 8's
    // 128 MiB KQ over copies of its K, its contiguous V and the f32 mask: "157.06 MiB" (the closed form
    // said 148.02).
    EXPECT_NEAR(deviceMiB(9, false), 157.06, 0.005);
}

TEST(OffloadedLfm2, TheHostKeepsTheLookupsDupAndAttendsOnTheCpu) {
    // "Vulkan_Host compute buffer size = " 14.02 MiB (lfm2_ngl0_np1: the inputs and three 2 MiB rows up to
    // the DUP; the closed form said 12.02) and 150.02 (lfm2_ngl_part_np1: layer 2's 128 MiB KQ above the
    // DUP and the 4 MiB contiguous V; 146.02).
    const test::SizedShape lfm2 = test::sizedShape("lfm2.json", std::nullopt, 1);
    const auto host = [&](std::size_t hostLayers, bool flashAttention) {
        const auto split =
            offloadedLfm2(lfm2.model, lfm2.kv, leadingOnHost(lfm2.model, hostLayers), flashAttention);
        EXPECT_TRUE(split.has_value());
        return split ? toMiB(offloadedLfm2HostBytes(*split, 512, 1, 1)) : 0.0;
    };
    EXPECT_NEAR(host(16, true), 14.02, 0.005);
    EXPECT_NEAR(host(9, false), 150.02, 0.005);
}

TEST(OffloadedLfm2, OnlyThePlacementsThePlansShowAreReplayed) {
    const test::SizedShape lfm2 = test::sizedShape("lfm2.json", std::nullopt, 1);
    // GPU layers with flash attention (the probe keeps it when the last host layer convolves).
    EXPECT_FALSE(offloadedLfm2(lfm2.model, lfm2.kv, leadingOnHost(lfm2.model, 9), true).has_value());
    // A last host layer that convolves; every layer on the GPU.
    EXPECT_FALSE(offloadedLfm2(lfm2.model, lfm2.kv, leadingOnHost(lfm2.model, 10), false).has_value());
    EXPECT_FALSE(offloadedLfm2(lfm2.model, lfm2.kv, leadingOnHost(lfm2.model, 0), false).has_value());
    // Another model.
    const test::SizedShape qwen3 = test::sizedShape("qwen3.json", std::nullopt, 1);
    EXPECT_FALSE(offloadedLfm2(qwen3.model, qwen3.kv, leadingOnHost(qwen3.model, 4), true).has_value());
}

} // namespace
} // namespace llamafit

// The Vulkan GPU's compute buffer of a fully offloaded Qwen3.5 MoE model whose expert tensors the
// GPU refuses (core/sizing/deltanetondevice.h), against llama-server 0.7.0 on lavapipe
// (tests/data/shapes/qwen35moe.json cut to 8 blocks as the Vulkan matrix runs it; -c 4096 -fa on
// -ngl all).
#include "core/common/units.h"
#include "core/sizing/deltanetondevice.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr std::uint64_t kDeltaNetOnDeviceVulkanAlignmentSlack =
    64 * 16; // lavapipe aligns to 64 B, the replay to 32

TEST(DeltaNetOnDevice, TheGpuPlanIsTheServersOwn) {
    const auto shape = deltaNetOnDeviceShape(test::interpretedShape("qwen35moe.json", 8));
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->attentionBlocks,
              (std::vector<bool>{false, false, false, true, false, false, false, true}));
    // qwen35moe_l8_ngl_all_np1_faon: the peak is block 4's conv input above block 3's expert
    // outputs' hole, "Vulkan0 compute buffer size = 72.10 MiB" (ggml-alloc's plan: 75599936 B).
    EXPECT_NEAR(static_cast<double>(deltaNetOnDeviceComputeBytes(*shape, 512, 1, 4096, true)), 75599936.0,
                kDeltaNetOnDeviceVulkanAlignmentSlack);
    // qwen35moe_l8_ngl_all (4 slots) and _np1_ub1024: "72.38 MiB", "144.10 MiB".
    EXPECT_NEAR(toMiB(deltaNetOnDeviceComputeBytes(*shape, 512, 4, 4096, true)), 72.38, 0.005);
    EXPECT_NEAR(toMiB(deltaNetOnDeviceComputeBytes(*shape, 1024, 1, 4096, true)), 144.10, 0.005);
}

TEST(DeltaNetOnDevice, WithoutFlashAttentionKqPeaksInTheAttentionBlock) {
    // qwen35moe_l8_ngl_all_np1_faoff: KQ (4096 cells x 512 tokens x 16 heads, f32: 128 MiB, just
    // inside lavapipe's storage range) on top of the f32 mask and the per-value V indices the
    // split before it brought: "189.00 MiB" (ggml-alloc's plan: 198185024 B).
    const auto shape = deltaNetOnDeviceShape(test::interpretedShape("qwen35moe.json", 8));
    ASSERT_TRUE(shape.has_value());
    EXPECT_NEAR(static_cast<double>(deltaNetOnDeviceComputeBytes(*shape, 512, 1, 4096, false)), 198185024.0,
                kDeltaNetOnDeviceVulkanAlignmentSlack);
}

TEST(DeltaNetOnDevice, AQuantizedKeyMovesKqToTheCpu) {
    // qwen35moe_l8_ngl_all_np1_faoff_kq8_0: ggml-vulkan refuses KQ over a q8_0 K view of 2 KV heads, so Q
    // and K are rotated, the CPU computes KQ and its 128 MiB product comes back for soft_max and KQV:
    // "Vulkan0 compute buffer size = 181.00 MiB", "Vulkan_Host ... = 154.27 MiB" (128 of it KQ).
    const ModelInfo model = test::interpretedShape("qwen35moe.json", 8);
    const auto shape = deltaNetOnDeviceShape(model);
    ASSERT_TRUE(shape.has_value());
    ServerSettings settings;
    settings.cacheTypeK = GgmlType::Q8_0;
    const QuantizedKeyAttention keys = quantizedKeyAttention(model, *shape, settings, false, Backend::Vulkan);
    EXPECT_TRUE(keys.quantizedKey);
    EXPECT_GT(keys.keyRotationBytes, 0u);
    EXPECT_NEAR(toMiB(deltaNetOnDeviceComputeBytes(*shape, 512, 1, 4096, false, keys)), 181.00, 0.005);
    EXPECT_EQ(quantizedKeyHostBytes(*shape, 512, 4096), 128u * 1024 * 1024);
    // With flash attention, an f16 K, or on another backend, KQ stays where it was.
    EXPECT_FALSE(quantizedKeyAttention(model, *shape, settings, true, Backend::Vulkan).quantizedKey);
    EXPECT_FALSE(quantizedKeyAttention(model, *shape, settings, false, Backend::Cuda).quantizedKey);
    EXPECT_FALSE(quantizedKeyAttention(model, *shape, ServerSettings{}, false, Backend::Vulkan).quantizedKey);
}

TEST(DeltaNetOnDevice, QwenNextFusesItsProjections) {
    const auto shape = deltaNetOnDeviceShape(test::interpretedShape("qwen3next.json", 8));
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->block.kind, RecurrentBlockKind::DeltaNetFusedQkvz);
    EXPECT_TRUE(shape->expertSumFirst);
    EXPECT_EQ(shape->positionsPerToken, 1u);
    // qwen3next_l8_ngl_all_np1_faon: "104.10 MiB" (ggml-alloc's plan: 109154368 B); 4 slots in one
    // unified cache (-np unset), 4 slots of 1024 cells each (-np 4) and -ub 1024: "112.38 MiB",
    // "108.38 MiB", "208.10 MiB".
    EXPECT_NEAR(static_cast<double>(deltaNetOnDeviceComputeBytes(*shape, 512, 1, 4096, true)), 109154368.0,
                kDeltaNetOnDeviceVulkanAlignmentSlack);
    EXPECT_NEAR(toMiB(deltaNetOnDeviceComputeBytes(*shape, 512, 4, 4096, true)), 112.38, 0.005);
    EXPECT_NEAR(toMiB(deltaNetOnDeviceComputeBytes(*shape, 512, 4, 1024, true)), 108.38, 0.005);
    EXPECT_NEAR(toMiB(deltaNetOnDeviceComputeBytes(*shape, 1024, 1, 4096, true)), 208.10, 0.005);
}

TEST(DeltaNetOnDevice, OnlyTheQwenDeltaNetMixturesOfExperts) {
    EXPECT_FALSE(deltaNetOnDeviceShape(test::interpretedShape("mamba2.json")).has_value());
    EXPECT_FALSE(deltaNetOnDeviceShape(test::llama1B()).has_value());
    EXPECT_EQ(deltaNetOnDeviceComputeBytes(DeltaNetOnDeviceShape{}, 512, 1, 4096, true), 0u);
}

} // namespace
} // namespace llamafit

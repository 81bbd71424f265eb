// The GPU's compute buffer of DeepSeek-2 (MLA) with blocks in host memory (core/sizing/offloadedmla.h)
// against llama-server 0.7.0's own on lavapipe, as logged in the recorded Vulkan matrix
// (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation plans
// (scripts/alloc-plan/run-case.sh; tests/data/shapes/deepseek2-mla.json: DeepSeek-V2-Lite's 27 blocks).
#include "core/common/units.h"
#include "core/sizing/offloadedmla.h"

#include "core/sizing/reservetokens.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

double deviceMiB(std::optional<std::uint32_t> slots, std::size_t hostBlocks, std::uint32_t ubatch) {
    const test::SizedShape sized = test::sizedShape("deepseek2-mla.json", std::nullopt, slots);
    const auto shape =
        offloadedMla(sized.model, sized.kv, test::leadingOnHost(sized.model, hostBlocks), true, true);
    EXPECT_TRUE(shape.has_value());
    return shape ? toMiB(offloadedMlaBytes(*shape, reserveTokens(ubatch, slots.value_or(4)))) : 0.0;
}

TEST(OffloadedMla, TheLatentAttentionAndTheDenseBlockOverCopiedWeights) {
    const test::SizedShape sized = test::sizedShape("deepseek2-mla.json", std::nullopt, 1);
    const auto shape = offloadedMla(sized.model, sized.kv, test::leadingOnHost(sized.model, 27), true, true);
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->latent, 512u);
    EXPECT_EQ(shape->rope, 64u);
    EXPECT_EQ(shape->queryValues, 16u * 192);
    EXPECT_EQ(shape->valueValues, 16u * 128);
    EXPECT_EQ(shape->sharedFeedForward, 2u * 1408);
    // deepseek2_mla_ngl_part_ub1024 (-ngl 13: blocks 0-14 on the host, 4 slots, -ub 1024): "Vulkan0 compute
    // buffer size = 190.97 MiB", block 0's dense FFN over its 22.71 MiB gate-weight copy's hole (the closed
    // form said 168.28); deepseek2_mla_ngl0_np1: 93.96.
    EXPECT_NEAR(deviceMiB(std::nullopt, 15, 1024), 190.97, 0.005);
    EXPECT_NEAR(deviceMiB(1, 27, 512), 93.96, 0.005);
    // deepseek2_mla_ngl0_np4 (four streams): "89.46 MiB". The plan copies only the latent part of each
    // stream's cache for V (4.00 MiB, not the layer's 4.50) and the replay does not follow that: 89.71.
    EXPECT_NEAR(deviceMiB(4, 27, 512), 89.46, 0.30);
}

TEST(OffloadedMla, OnlyFlashAttentionWithRefusedExpertsIsReplayed) {
    const test::SizedShape sized = test::sizedShape("deepseek2-mla.json", std::nullopt, 1);
    const LayerPlacement host = test::leadingOnHost(sized.model, 27);
    EXPECT_FALSE(offloadedMla(sized.model, sized.kv, host, false, true).has_value());
    EXPECT_FALSE(offloadedMla(sized.model, sized.kv, host, true, false).has_value());
    EXPECT_FALSE(
        offloadedMla(sized.model, sized.kv, test::leadingOnHost(sized.model, 0), true, true).has_value());
}

} // namespace
} // namespace llamafit

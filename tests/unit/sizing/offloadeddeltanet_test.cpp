// The GPU's compute buffer of a Qwen3.5 MoE model whose leading blocks stay in host memory
// (core/sizing/offloadeddeltanet.h) against llama-server 0.7.0's own on lavapipe, as logged in the
// recorded Vulkan matrix (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation
// plans (scripts/alloc-plan/run-case.sh); tests/data/shapes/qwen35moe.json cut to 8 blocks.
#include "core/common/units.h"
#include "core/sizing/offloadeddeltanet.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>
#include <utility>

namespace llamafit {
namespace {

using test::leadingOnHost;
using Sized = test::SizedShape;

// The shape cut to 8 blocks, -c 4096 and `slots` (nullopt: the server's 4 slots in one unified cache).
Sized qwen35moe(std::optional<std::uint32_t> slots) {
    return test::sizedShape("qwen35moe.json", 8, slots);
}

double deviceMiB(const Sized& sized, std::size_t hostBlocks, std::uint32_t ubatch, std::uint32_t slots) {
    const auto split =
        offloadedDeltaNet(sized.model, sized.kv, leadingOnHost(sized.model, hostBlocks), true, true);
    EXPECT_TRUE(split.has_value());
    return split ? toMiB(offloadedDeltaNetBytes(*split, ubatch, slots, slots)) : 0;
}

TEST(OffloadedDeltaNet, HostBlocksCopyTheirWeightsAndStates) {
    // qwen35moe_l8_ngl0_np1 and _np4: "Vulkan0 compute buffer size = 65.00 MiB", "68.00 MiB".
    EXPECT_NEAR(deviceMiB(qwen35moe(1), 8, 512, 1), 65.00, 0.005);
    EXPECT_NEAR(deviceMiB(qwen35moe(4), 8, 512, 4), 68.00, 0.005);
}

TEST(OffloadedDeltaNet, GpuBlocksFollowTheHostBlocks) {
    // qwen35moe_l8_ngl_part_np1 (-ngl 4: blocks 5-7 on the GPU): "65.00 MiB"; qwen35moe_l8_ngl_part_ub1024
    // (4 slots): "129.40 MiB".
    EXPECT_NEAR(deviceMiB(qwen35moe(1), 5, 512, 1), 65.00, 0.005);
    EXPECT_NEAR(deviceMiB(qwen35moe(std::nullopt), 5, 1024, 4), 129.40, 0.005);
}

TEST(OffloadedDeltaNet, WithoutFlashAttentionTheGpuAttendsOverCopies) {
    // qwen35moe_l8_ngl0_np1_faoff: "Vulkan0 compute buffer size = 193.00 MiB" (block 7's 128 MiB KQ over
    // copies of K, V and the 8 MiB f32 mask); _ngl_part_np1_faoff (-ngl 4): 181.00, at block 3.
    const Sized sized = qwen35moe(1);
    for (const auto& [hostBlocks, logged] : {std::pair<std::size_t, double>{8, 193.00}, {5, 181.00}}) {
        const auto split = offloadedDeltaNet(sized.model, sized.kv, leadingOnHost(sized.model, hostBlocks),
                                             false, true, false);
        ASSERT_TRUE(split.has_value());
        EXPECT_NEAR(toMiB(offloadedDeltaNetBytes(*split, 512, 1, 1)), logged, 0.005)
            << hostBlocks << " host blocks";
    }
    // The mask's first copy in a GPU attention block (blocks 3-7 on the GPU): not read from a plan.
    EXPECT_FALSE(offloadedDeltaNet(sized.model, sized.kv, leadingOnHost(sized.model, 3), false, true, false)
                     .has_value());
}

TEST(OffloadedDeltaNet, QwenNextFlattensItsFusedProjection) {
    // qwen3next_l8_ngl0_np1: "Vulkan0 compute buffer size = 103.50 MiB".
    const Sized next = test::sizedShape("qwen3next.json", 8, 1);
    const auto split = offloadedDeltaNet(next.model, next.kv, leadingOnHost(next.model, 8), true, true);
    ASSERT_TRUE(split.has_value());
    EXPECT_NEAR(toMiB(offloadedDeltaNetBytes(*split, 512, 1, 1)), 103.50, 0.005);
    // Its GPU blocks after host blocks: not read from a plan.
    EXPECT_FALSE(
        offloadedDeltaNet(next.model, next.kv, leadingOnHost(next.model, 5), true, true).has_value());
}

TEST(OffloadedDeltaNet, OnlyTheReplayedCaseIsFollowed) {
    const Sized sized = qwen35moe(1);
    const LayerPlacement allHost = leadingOnHost(sized.model, 8);
    // Without flash attention where the GPU refuses KQ, or with experts the GPU accepts (copied in
    // like the other weights).
    EXPECT_FALSE(offloadedDeltaNet(sized.model, sized.kv, allHost, false, true, true).has_value());
    EXPECT_FALSE(offloadedDeltaNet(sized.model, sized.kv, allHost, true, false).has_value());
    // Every block on the GPU: deltanetondevice.h's case.
    EXPECT_FALSE(
        offloadedDeltaNet(sized.model, sized.kv, leadingOnHost(sized.model, 0), true, true).has_value());
}

} // namespace
} // namespace llamafit

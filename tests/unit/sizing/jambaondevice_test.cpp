// The Vulkan GPU's compute buffer of a fully offloaded Jamba whose experts the GPU refuses
// (core/sizing/jambaondevice.h) against llama-server 0.7.0's own on lavapipe, as logged in the
// recorded Vulkan matrix (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation
// plans (scripts/alloc-plan/run-case.sh; tests/data/shapes/jamba.json cut to 6 blocks: Mamba,
// Mamba + MoE, Mamba, Mamba + MoE, attention, Mamba + MoE).
#include "core/common/units.h"
#include "core/sizing/jambaondevice.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>

namespace llamafit {
namespace {

struct JambaCase {
    std::optional<std::uint32_t> slots; // nullopt: the server's 4 slots in one unified cache
    std::uint32_t contextTokens = 4096;
    bool flashAttention = true;
};

std::optional<JambaStack> stackOf(const JambaCase& c, bool expertsRefused = true,
                                  std::size_t hostLayers = 0) {
    const ModelInfo model = test::interpretedShape("jamba.json", 6);
    ServerSettings settings;
    settings.contextTokens = c.contextTokens;
    settings.parallelSlots = c.slots;
    const ResolvedContext context = resolveContext(model, settings).value();
    // Without flash attention lavapipe refuses KQ (4096 cells x 512 tokens x 32 heads x 4 B).
    return jambaStack(model, sizeKvCaches(model, settings, context), c.flashAttention, expertsRefused,
                      !c.flashAttention, hostLayers);
}

double jambaDeviceMiB(const JambaCase& c, std::uint32_t ubatch, std::uint32_t outputs) {
    const auto stack = stackOf(c);
    EXPECT_TRUE(stack.has_value());
    return stack ? toMiB(jambaDeviceBytes(*stack, ubatch, c.slots.value_or(4), outputs)) : 0.0;
}

TEST(JambaOnDevice, ReadsTheLayersOfTheStack) {
    const auto stack = stackOf({});
    ASSERT_TRUE(stack.has_value());
    ASSERT_EQ(stack->layers.size(), 6u);
    EXPECT_TRUE(stack->layers[4].attention);
    EXPECT_FALSE(stack->layers[3].attention);
    EXPECT_TRUE(stack->layers[1].experts);
    EXPECT_FALSE(stack->layers[2].experts);
    EXPECT_EQ(stack->feedForward, 14336u);
    EXPECT_EQ(stack->expertsUsed, 2u);
}

TEST(JambaOnDevice, TheGpuPlanIsTheServersOwn) {
    // Block 0's FFN peaks above the holes the mixed input's rows leave: jamba_l6_ngl_all (4 slots),
    // _np1_faon, _np1_faoff (KQ on the CPU), _c16384_np4_faoff: "Vulkan0 compute buffer size =
    // 116.00 MiB"; _np1_ub1024: 232.01. The closed form said 118.39 with 4 slots.
    EXPECT_NEAR(jambaDeviceMiB({}, 512, 4), 116.00, 0.005);
    EXPECT_NEAR(jambaDeviceMiB({1}, 512, 1), 116.00, 0.005);
    EXPECT_NEAR(jambaDeviceMiB({1, 4096, false}, 512, 1), 116.00, 0.005);
    EXPECT_NEAR(jambaDeviceMiB({4, 16384, false}, 512, 4), 116.00, 0.005);
    EXPECT_NEAR(jambaDeviceMiB({1}, 1024, 1), 232.01, 0.005);
}

// -ngl N on the 6 blocks: the first 7 - N stay in host memory; one slot, n_ubatch 512.
double hostLayersMiB(std::size_t gpuLayers, bool flashAttention = true) {
    const auto stack = stackOf({1, 4096, flashAttention}, true, std::min<std::size_t>(6, 7 - gpuLayers));
    EXPECT_TRUE(stack.has_value()) << "-ngl " << gpuLayers;
    return stack ? toMiB(jambaDeviceBytes(*stack, 512, 1, 1)) : 0.0;
}

TEST(JambaOnDevice, HostLayersCopyEachWeightInForItsOp) {
    // Block 0's FFN peaks over its 59.50 MiB ffn_up copy: jamba_l6_ngl0_np1 and _ngl_part_np1 (-ngl 3):
    // "Vulkan0 compute buffer size = 131.50 MiB"; -ngl 5: 131.50. With -ngl 4 block 2 hands over to the
    // GPU and its FFN peaks above the GPU's first conv rows: 131.59; -ngl 2 (flash attention off by the
    // probe, flashattentionprobe.h) hands over from the attention layer: 131.59.
    EXPECT_NEAR(hostLayersMiB(0), 131.50, 0.005);
    EXPECT_NEAR(hostLayersMiB(3), 131.50, 0.005);
    EXPECT_NEAR(hostLayersMiB(5), 131.50, 0.005);
    EXPECT_NEAR(hostLayersMiB(4), 131.59, 0.005);
    EXPECT_NEAR(hostLayersMiB(2, false), 131.59, 0.005);
}

TEST(JambaOnDevice, OnlyRefusedExpertsAndMeasuredOrdersAreReplayed) {
    // An attention layer with flash attention handing over to the GPU: the probe turns it off first.
    EXPECT_FALSE(stackOf({1}, true, 5).has_value());
    EXPECT_FALSE(stackOf({}, false).has_value()); // experts on the GPU: not measured
    ServerSettings settings;
    settings.contextTokens = 4096;
    const ModelInfo mamba = test::interpretedShape("mamba.json");
    const ResolvedContext context = resolveContext(mamba, settings).value();
    EXPECT_FALSE(jambaStack(mamba, sizeKvCaches(mamba, settings, context), true, true, false).has_value());
    // Without flash attention, a KQ the GPU takes: not measured.
    const ModelInfo jamba = test::interpretedShape("jamba.json", 6);
    EXPECT_FALSE(jambaStack(jamba, sizeKvCaches(jamba, settings, resolveContext(jamba, settings).value()),
                            false, true, false)
                     .has_value());
}

} // namespace
} // namespace llamafit

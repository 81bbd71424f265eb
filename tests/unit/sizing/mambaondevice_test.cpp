// The Vulkan GPU's compute buffer of a fully offloaded Mamba-1 or Mamba-2 model (core/sizing/mambaondevice.h)
// against the byte counts ggml-alloc chose in llama-server 0.7.0 on lavapipe, read from its
// allocation plans (scripts/alloc-plan/run-case.sh; tests/data/shapes/mamba.json, 24 blocks).
#include "core/common/units.h"
#include "core/sizing/mambaondevice.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace llamafit {
namespace {

constexpr std::uint64_t kMambaOnDeviceVulkanAlignmentSlack =
    64 * 8; // lavapipe aligns to 64 B, the replay to 32

std::uint64_t deviceBytes(std::uint32_t ubatch, std::uint32_t slots) {
    const ModelInfo model = test::interpretedShape("mamba.json");
    return mambaOneDeviceComputeBytes(recurrentBlockShape(model),
                                      static_cast<std::uint32_t>(model.layers.size()), ubatch, slots, slots);
}

TEST(MambaOnDevice, TheGpuPlanIsTheServersOwn) {
    // mamba_ngl_all (4 slots) and mamba_ngl_all_np1_ub1024: "Vulkan0 compute buffer size = 18.67
    // MiB" and "36.10 MiB".
    EXPECT_NEAR(static_cast<double>(deviceBytes(512, 4)), 19578896.0, kMambaOnDeviceVulkanAlignmentSlack)
        << deviceBytes(512, 4);
    EXPECT_NEAR(static_cast<double>(deviceBytes(1024, 1)), 37855248.0, kMambaOnDeviceVulkanAlignmentSlack);
}

// The stack of `file`'s shape (cut to `blocks` when told) with -c 4096 and `slots` (nullopt: the
// server's 4 slots in one unified cache).
std::optional<MambaTwoStack> stackOf(const std::string& file, std::optional<std::uint32_t> blocks,
                                     std::optional<std::uint32_t> slots) {
    const ModelInfo model = test::interpretedShape(file, blocks);
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = slots;
    const ResolvedContext context = resolveContext(model, settings).value();
    return mambaTwoStack(model, sizeKvCaches(model, settings, context), true);
}

TEST(MambaOnDevice, MambaTwoFollowsVulkansNodeOrder) {
    const auto stack = stackOf("mamba2.json", std::nullopt, std::nullopt);
    ASSERT_TRUE(stack.has_value());
    // mamba2_ngl_all (4 slots): "Vulkan0 compute buffer size = 27.88 MiB" (ggml-alloc's plan:
    // 29237504 B); -np 1 and -np 1 -ub 1024: "23.32 MiB", "45.89 MiB".
    EXPECT_NEAR(static_cast<double>(mambaTwoStackDeviceBytes(*stack, 512, 4, 4)), 29237504.0,
                kMambaOnDeviceVulkanAlignmentSlack);
    EXPECT_NEAR(toMiB(mambaTwoStackDeviceBytes(*stack, 512, 1, 1)), 23.32, 0.005);
    EXPECT_NEAR(toMiB(mambaTwoStackDeviceBytes(*stack, 1024, 1, 1)), 45.89, 0.005);
}

TEST(MambaOnDevice, HybridStacksTakeTheirLayersInTurn) {
    // granitehybrid_ngl_all (a gated FFN closing each of 32 layers, attention at 10, 13, 17, 27):
    // "31.94 MiB"; -np 4: "28.94 MiB".
    const auto granite = stackOf("granitehybrid.json", std::nullopt, std::nullopt);
    ASSERT_TRUE(granite.has_value());
    EXPECT_TRUE(granite->feedForwardAfterEach);
    EXPECT_NEAR(toMiB(mambaTwoStackDeviceBytes(*granite, 512, 4, 4)), 31.94, 0.005);
    const auto graniteSplit = stackOf("granitehybrid.json", std::nullopt, 4);
    ASSERT_TRUE(graniteSplit.has_value());
    EXPECT_NEAR(toMiB(mambaTwoStackDeviceBytes(*graniteSplit, 512, 4, 4)), 28.94, 0.005);
    // nemotron_h_l6_ngl_all_np1_faon (Mamba-2, FFN, Mamba-2, FFN, Mamba-2, attention): "128.38 MiB".
    const auto nemotron = stackOf("nemotron_h.json", 6, 1);
    ASSERT_TRUE(nemotron.has_value());
    EXPECT_EQ(nemotron->layers.size(), 6u);
    EXPECT_NEAR(toMiB(mambaTwoStackDeviceBytes(*nemotron, 512, 1, 1)), 128.38, 0.005);
}

TEST(MambaOnDevice, AttentionBetweenMambaLayersTakesTheNextConvRows) {
    // The whole 12-layer nemotron_h shape (attention at layers 5 and 10, between Mamba-2 and FFN
    // layers), outside the matrix: llama-server -c 4096 -np 1 -fa on -ngl all on lavapipe, dumped
    // with scripts/alloc-plan/run-case.sh (REC_DIR): "Vulkan0 compute buffer size = 128.26 MiB"
    // (ggml-alloc's plan: 134492352 B).
    const auto full = stackOf("nemotron_h.json", std::nullopt, 1);
    ASSERT_TRUE(full.has_value());
    EXPECT_EQ(full->layers[5], MambaTwoStack::Layer::Attention);
    EXPECT_NEAR(static_cast<double>(mambaTwoStackDeviceBytes(*full, 512, 1, 1)), 134492352.0,
                kMambaOnDeviceVulkanAlignmentSlack);
    // Without flash attention a hybrid is replayed only where the GPU refuses KQ (the attention then
    // runs on the CPU); the KQ it accepts was not read from a plan.
    const test::SizedShape nemotron = test::sizedShape("nemotron_h.json", std::nullopt, 1);
    EXPECT_FALSE(mambaTwoStack(nemotron.model, nemotron.kv, false).has_value());
}

TEST(MambaOnDevice, WithKqOnTheCpuTheGpuGetsNoMask) {
    // nemotron_h_l6_ngl_all_c16384_np4_faoff (4 streams of 4096 cells; lavapipe refuses the 256 MiB KQ):
    // "Vulkan0 compute buffer size = 156.73 MiB".
    const test::SizedShape nemotron = test::sizedShape("nemotron_h.json", 6, 4, 16384);
    const auto stack = mambaTwoStack(nemotron.model, nemotron.kv, false, true);
    ASSERT_TRUE(stack.has_value());
    EXPECT_TRUE(stack->kqOnCpu);
    EXPECT_NEAR(toMiB(mambaTwoStackDeviceBytes(*stack, 512, 4, 4)), 156.73, 0.005);
}

TEST(MambaOnDevice, NothingToPlanIsZero) {
    const RecurrentBlockShape shape = recurrentBlockShape(test::interpretedShape("mamba.json"));
    EXPECT_EQ(mambaOneDeviceComputeBytes(RecurrentBlockShape{}, 24, 512, 1, 1), 0u);
    EXPECT_EQ(mambaOneDeviceComputeBytes(shape, 0, 512, 1, 1), 0u);
    EXPECT_EQ(mambaOneDeviceComputeBytes(shape, 24, 0, 1, 1), 0u);
}

} // namespace
} // namespace llamafit

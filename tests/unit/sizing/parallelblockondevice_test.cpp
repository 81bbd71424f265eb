// Cohere 2 fully offloaded on Vulkan with flash attention (core/sizing/parallelblockondevice.h),
// against Vulkan0's plans in llama-server 0.7.0 on lavapipe (tests/data/shapes/cohere2.json cut
// to 4 blocks as the Vulkan matrix runs it; -c 4096 -ngl all).
#include "core/sizing/parallelblockondevice.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr std::uint64_t kParallelBlockOnDeviceVulkanAlignmentSlack =
    64 * 16; // lavapipe aligns to 64 B, the replay to 32

std::optional<ParallelBlockShape> cohere2(std::optional<std::uint32_t> slots, GgmlType cache = GgmlType::F16,
                                          bool kqOnCpu = false) {
    const ModelInfo model = test::interpretedShape("cohere2.json", 4);
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = slots;
    settings.cacheTypeK = cache;
    settings.cacheTypeV = cache;
    const ResolvedContext context = resolveContext(model, settings).value();
    return parallelBlockShape(model, sizeKvCaches(model, settings, context), settings, kqOnCpu);
}

TEST(ParallelBlockOnDevice, TheFfnMeetsFlashAttention) {
    // cohere2_l4_ngl_all (4 slots, one unified cache): "Vulkan0 compute buffer size = 136.02 MiB"
    // (ggml-alloc's plan: 142628928 B).
    const auto shape = cohere2(std::nullopt);
    ASSERT_TRUE(shape.has_value());
    EXPECT_FALSE(shape->attentionFirst);
    EXPECT_EQ(shape->layerRoped, (std::vector<bool>{true, true, true, false}));
    EXPECT_NEAR(static_cast<double>(parallelBlockDeviceBytes(*shape, 512, 4)), 142628928.0,
                kParallelBlockOnDeviceVulkanAlignmentSlack);
}

TEST(ParallelBlockOnDevice, SeveralStreamsAttendFirst) {
    // cohere2_l4_ngl_all_np4 (four streams of 1024 cells): "118.02 MiB" (123754560 B).
    const auto shape = cohere2(4);
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->attentionFirst);
    EXPECT_NEAR(static_cast<double>(parallelBlockDeviceBytes(*shape, 512, 4)), 123754560.0,
                kParallelBlockOnDeviceVulkanAlignmentSlack);
}

TEST(ParallelBlockOnDevice, AQuantizedCacheAddsTheRotations) {
    // cohere2_l4_ngl_all_np1_q8_0: V, Q and K rotated before flash attention, its output rotated
    // back: "144.18 MiB" (151181376 B). With four streams it is not replayed.
    const auto shape = cohere2(1, GgmlType::Q8_0);
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->rotatedKeys && shape->rotatedValues);
    EXPECT_NEAR(static_cast<double>(parallelBlockDeviceBytes(*shape, 512, 1)), 151181376.0,
                kParallelBlockOnDeviceVulkanAlignmentSlack);
    EXPECT_FALSE(cohere2(4, GgmlType::Q8_0).has_value());
}

TEST(ParallelBlockOnDevice, WithKqOnTheCpuOnlyItsResultComesBack) {
    // cohere2_l4_ngl_all_np1_faoff (lavapipe refuses the 256 MiB KQ): "Vulkan0 compute buffer size =
    // 128.01 MiB", no mask on the device.
    const auto refused = cohere2(1, GgmlType::F16, true);
    ASSERT_TRUE(refused.has_value());
    EXPECT_NEAR(static_cast<double>(parallelBlockDeviceBytes(*refused, 512, 1)) / (1024.0 * 1024.0), 128.01,
                0.005);
    // With a quantized cache's rotations: not read from a plan.
    EXPECT_FALSE(cohere2(1, GgmlType::Q8_0, true).has_value());
}

TEST(ParallelBlockOnDevice, OnlyCohere2) {
    const ModelInfo llama = test::llama1B();
    ServerSettings settings;
    settings.contextTokens = 4096;
    const ResolvedContext context = resolveContext(llama, settings).value();
    EXPECT_FALSE(parallelBlockShape(llama, sizeKvCaches(llama, settings, context), settings).has_value());
    EXPECT_EQ(parallelBlockDeviceBytes(ParallelBlockShape{}, 512, 1), 0u);
}

} // namespace
} // namespace llamafit

// Qwen3 fully offloaded on Vulkan with flash attention (core/sizing/normedattentionondevice.h),
// against Vulkan0's plans in llama-server 0.7.0 on lavapipe (tests/data/shapes/qwen3.json,
// -c 4096 -np 1 -fa on -ngl all; scripts/alloc-plan/run-case.sh).
#include "core/sizing/normedattentionondevice.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>

namespace llamafit {
namespace {

constexpr std::uint64_t kNormedAttentionOnDeviceVulkanAlignmentSlack =
    64 * 16; // lavapipe aligns to 64 B, the replay to 32

std::optional<NormedAttentionShape> qwen3(GgmlType keys, GgmlType values) {
    const ModelInfo model = test::interpretedShape("qwen3.json");
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = 1;
    settings.cacheTypeK = keys;
    settings.cacheTypeV = values;
    const ResolvedContext context = resolveContext(model, settings).value();
    return normedAttentionShape(model, sizeKvCaches(model, settings, context), settings);
}

TEST(NormedAttentionOnDevice, TheGpuPlanIsTheServersOwn) {
    // qwen3_ngl_all_np1_faon: "Vulkan0 compute buffer size = 26.01 MiB" (ggml-alloc's plan:
    // 27277376 B).
    const auto shape = qwen3(GgmlType::F16, GgmlType::F16);
    ASSERT_TRUE(shape.has_value());
    EXPECT_FALSE(shape->rotatedKeys || shape->rotatedValues);
    EXPECT_NEAR(static_cast<double>(normedAttentionDeviceBytes(*shape, 512, 1)), 27277376.0,
                kNormedAttentionOnDeviceVulkanAlignmentSlack);
}

TEST(NormedAttentionOnDevice, AQuantizedCacheAddsTheRotations) {
    // qwen3_ngl_all_np1_q8_0: Q, K, V and the attention's output rotated: "30.09 MiB" (31553600 B).
    const auto shape = qwen3(GgmlType::Q8_0, GgmlType::Q8_0);
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->rotatedKeys && shape->rotatedValues);
    EXPECT_NEAR(static_cast<double>(normedAttentionDeviceBytes(*shape, 512, 1)), 31553600.0,
                kNormedAttentionOnDeviceVulkanAlignmentSlack);
    const auto keysOnly = qwen3(GgmlType::Q8_0, GgmlType::F16);
    ASSERT_TRUE(keysOnly.has_value());
    EXPECT_TRUE(keysOnly->rotatedKeys);
    EXPECT_FALSE(keysOnly->rotatedValues);
}

TEST(NormedAttentionOnDevice, OnlyQwen3) {
    const ModelInfo llama = test::llama1B();
    ServerSettings settings;
    settings.contextTokens = 4096;
    const ResolvedContext context = resolveContext(llama, settings).value();
    EXPECT_FALSE(normedAttentionShape(llama, sizeKvCaches(llama, settings, context), settings).has_value());
    EXPECT_EQ(normedAttentionDeviceBytes(NormedAttentionShape{}, 512, 1), 0u);
}

} // namespace
} // namespace llamafit

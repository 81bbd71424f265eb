// Gemma 3 fully offloaded on Vulkan without flash attention (core/sizing/gemmaondevice.h) against
// llama-server 0.7.0's own on lavapipe, as logged in the recorded Vulkan matrix
// (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation plans
// (scripts/alloc-plan/run-case.sh; tests/data/shapes/gemma3.json).
#include "core/common/units.h"
#include "core/sizing/gemmaondevice.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>

namespace llamafit {
namespace {

std::optional<GemmaShape> gemma3(GgmlType keyCache, bool flashAttention) {
    const ModelInfo model = test::interpretedShape("gemma3.json");
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = 1;
    settings.cacheTypeK = keyCache;
    const ResolvedContext context = resolveContext(model, settings).value();
    return gemmaShape(model, sizeKvCaches(model, settings, context), settings, flashAttention);
}

TEST(GemmaOnDevice, TheFfnStacksAboveBothCachesInputs) {
    // gemma3_ngl_all_np1_faoff: "Vulkan0 compute buffer size = 63.77 MiB"; with a q8_0 K,
    // gemma3_ngl_all_np1_faoff_kq8_0: 64.27 (rotation matrices and a rotated Q and K).
    const auto plain = gemma3(GgmlType::F16, false);
    ASSERT_TRUE(plain.has_value());
    EXPECT_NEAR(toMiB(gemmaDeviceBytes(*plain, 512, 1)), 63.77, 0.005);
    const auto rotated = gemma3(GgmlType::Q8_0, false);
    ASSERT_TRUE(rotated.has_value());
    EXPECT_TRUE(rotated->rotatedKeys);
    EXPECT_NEAR(toMiB(gemmaDeviceBytes(*rotated, 512, 1)), 64.27, 0.005);
}

TEST(GemmaOnDevice, OnlyWithoutFlashAttention) {
    EXPECT_FALSE(gemma3(GgmlType::F16, true).has_value());
}

} // namespace
} // namespace llamafit

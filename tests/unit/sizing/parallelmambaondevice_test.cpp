// Falcon-H1 fully offloaded on Vulkan (core/sizing/parallelmambaondevice.h),
// against Vulkan0's plans in llama-server 0.7.0 on lavapipe (tests/data/shapes/falcon-h1.json,
// -c 4096 -ngl all; scripts/alloc-plan/run-case.sh).
#include "core/common/units.h"
#include "core/sizing/parallelmambaondevice.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>

namespace llamafit {

namespace {

constexpr std::uint64_t kParallelMambaOnDeviceVulkanAlignmentSlack =
    64 * 16; // lavapipe aligns to 64 B, the replay to 32

// -c `context` (4096 unless told) and `slots`, flash attention unless told.
std::optional<ParallelMambaShape> falcon(std::optional<std::uint32_t> slots, bool flashAttention = true,
                                         std::uint32_t contextTokens = 4096) {
    const ModelInfo model = test::interpretedShape("falcon-h1.json");
    ServerSettings settings;
    settings.contextTokens = contextTokens;
    settings.parallelSlots = slots;
    const ResolvedContext context = resolveContext(model, settings).value();
    return parallelMambaShape(model, sizeKvCaches(model, settings, context), flashAttention);
}

TEST(ParallelMambaOnDevice, TheAttentionsOutputWaitsThroughTheScan) {
    // falcon_h1_ngl_all_np1_faon: "Vulkan0 compute buffer size = 30.58 MiB" (ggml-alloc's plan:
    // 32066752 B); 4 slots in one cache and -np 1 -ub 1024: "31.64 MiB", "61.14 MiB".
    const auto one = falcon(1);
    ASSERT_TRUE(one.has_value());
    EXPECT_NEAR(static_cast<double>(parallelMambaDeviceBytes(*one, 512, 1, 1)), 32066752.0,
                kParallelMambaOnDeviceVulkanAlignmentSlack);
    EXPECT_NEAR(toMiB(parallelMambaDeviceBytes(*one, 1024, 1, 1)), 61.14, 0.005);
    const auto unified = falcon(std::nullopt);
    ASSERT_TRUE(unified.has_value());
    EXPECT_NEAR(toMiB(parallelMambaDeviceBytes(*unified, 512, 4, 4)), 31.64, 0.005);
}

TEST(ParallelMambaOnDevice, WithoutFlashAttentionKqComesBeforeTheSsm) {
    // falcon_h1_ngl_all_np1_faoff: "Vulkan0 compute buffer size = 91.06 MiB", 64 MiB of it KQ;
    // falcon_h1_ngl_all_c16384_np4_faoff (4 streams of 4096 cells): the same.
    const auto one = falcon(1, false);
    ASSERT_TRUE(one.has_value());
    EXPECT_NEAR(toMiB(parallelMambaDeviceBytes(*one, 512, 1, 1)), 91.06, 0.005);
    const auto streams = falcon(4, false, 16384);
    ASSERT_TRUE(streams.has_value());
    EXPECT_NEAR(toMiB(parallelMambaDeviceBytes(*streams, 512, 4, 4)), 91.06, 0.005);
}

TEST(ParallelMambaOnDevice, OnlyFalconH1) {
    const ModelInfo mamba2 = test::interpretedShape("mamba2.json");
    ServerSettings settings;
    settings.contextTokens = 4096;
    const ResolvedContext context = resolveContext(mamba2, settings).value();
    EXPECT_FALSE(parallelMambaShape(mamba2, sizeKvCaches(mamba2, settings, context), true).has_value());
    EXPECT_EQ(parallelMambaDeviceBytes(ParallelMambaShape{}, 512, 1, 1), 0u);
}

} // namespace
} // namespace llamafit

// The GPU's compute buffer of RWKV-7 with every block in host memory (core/sizing/offloadedrwkv7.h)
// against llama-server 0.7.0's own on lavapipe, as logged in the recorded Vulkan matrix
// (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation plan
// (scripts/alloc-plan/run-case.sh rwkv7_ngl0_np1; tests/data/shapes/rwkv7.json, 12 blocks).
#include "core/common/units.h"
#include "core/sizing/offloadedrwkv7.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(OffloadedRwkv7, EveryWeightAndStateRowIsCopiedIn) {
    // rwkv7_ngl0_np1: "Vulkan0 compute buffer size = 27.19 MiB", at block 1's wkv7 over the 9 MiB of
    // lerps, v_first and the copied weights' holes; the closed form said 24.02.
    const ModelInfo model = test::interpretedShape("rwkv7.json");
    const auto split = offloadedRwkv7(model, test::leadingOnHost(model, model.trunkLayerCount()));
    ASSERT_TRUE(split.has_value());
    ASSERT_EQ(split->blocks.size(), 12u);
    EXPECT_GT(split->embeddingNormBias, 0u);
    EXPECT_NEAR(toMiB(offloadedRwkv7Bytes(*split, 512, 1)), 27.19, 0.005);
}

TEST(OffloadedRwkv7, APartialOffloadIsNotReplayed) {
    const ModelInfo model = test::interpretedShape("rwkv7.json");
    EXPECT_FALSE(offloadedRwkv7(model, test::leadingOnHost(model, 6)).has_value());
    EXPECT_FALSE(offloadedRwkv7(test::interpretedShape("mamba.json"),
                                test::leadingOnHost(test::interpretedShape("mamba.json"), 24))
                     .has_value());
}

} // namespace
} // namespace llamafit

// The Vulkan GPU's compute buffer of a fully offloaded RWKV-7 or RWKV-6 model (core/sizing/rwkvondevice.h)
// against llama-server 0.7.0's own on lavapipe, as logged in the recorded Vulkan matrix
// (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation plan
// (scripts/alloc-plan/run-case.sh; tests/data/shapes/rwkv7.json, rwkv6.json cut to 8 blocks).
#include "core/common/units.h"
#include "core/sizing/rwkvondevice.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

double deviceMiB(std::uint32_t ubatch, std::uint32_t slots) {
    const ModelInfo model = test::interpretedShape("rwkv7.json");
    return toMiB(
        rwkv7DeviceComputeBytes(recurrentBlockShape(model), model.trunkLayerCount(), ubatch, slots, slots));
}

TEST(RwkvOnDevice, TheGpuPlanIsTheServersOwn) {
    // rwkv7_ngl_all_np1_faon: "Vulkan0 compute buffer size = 30.19 MiB"; rwkv7_ngl_all (4 slots):
    // 30.75; rwkv7_ngl_all_np1_ub1024: 60.20.
    EXPECT_NEAR(deviceMiB(512, 1), 30.19, 0.005);
    EXPECT_NEAR(deviceMiB(512, 4), 30.75, 0.005);
    EXPECT_NEAR(deviceMiB(1024, 1), 60.20, 0.005);
}

TEST(RwkvOnDevice, RwkvSixCopiesItsBonusInForEachBlock) {
    const auto shape = rwkv6Shape(test::interpretedShape("rwkv6.json", 8));
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->lerpLora, 160u);
    EXPECT_EQ(shape->decayLora, 64u);
    // rwkv6_l8_ngl_all_np1_faon: "Vulkan0 compute buffer size = 56.50 MiB"; rwkv6_l8_ngl_all (4 slots):
    // 58.00; rwkv6_l8_ngl_all_np1_ub1024: 112.51.
    EXPECT_NEAR(toMiB(rwkv6DeviceComputeBytes(*shape, 512, 1, 1)), 56.50, 0.005);
    EXPECT_NEAR(toMiB(rwkv6DeviceComputeBytes(*shape, 512, 4, 4)), 58.00, 0.005);
    EXPECT_NEAR(toMiB(rwkv6DeviceComputeBytes(*shape, 1024, 1, 1)), 112.51, 0.005);
}

TEST(RwkvOnDevice, OtherBlocksAreNotReplayed) {
    EXPECT_FALSE(rwkv6Shape(test::interpretedShape("rwkv7.json")).has_value());
    EXPECT_EQ(
        rwkv7DeviceComputeBytes(recurrentBlockShape(test::interpretedShape("mamba2.json")), 24, 512, 1, 1),
        0u);
}

} // namespace
} // namespace llamafit

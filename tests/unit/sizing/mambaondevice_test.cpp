// The Vulkan GPU's compute buffer of a fully offloaded Mamba-1 or Mamba-2 model (core/sizing/mambaondevice.h)
// against the byte counts ggml-alloc chose in llama-server 0.7.0 on lavapipe, read from its
// allocation plans (scripts/alloc-plan/run-case.sh; tests/data/shapes/mamba.json, 24 blocks).
#include "core/sizing/mambaondevice.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr std::uint64_t kVulkanAlignmentSlack = 64 * 8; // lavapipe aligns to 64 B, the replay to 32

std::uint64_t deviceBytes(std::uint32_t ubatch, std::uint32_t slots) {
    const ModelInfo model = test::interpretedShape("mamba.json");
    return mambaOneDeviceComputeBytes(recurrentBlockShape(model),
                                      static_cast<std::uint32_t>(model.layers.size()), ubatch, slots, slots);
}

TEST(MambaOnDevice, TheGpuPlanIsTheServersOwn) {
    // mamba_ngl_all (4 slots) and mamba_ngl_all_np1_ub1024: "Vulkan0 compute buffer size = 18.67
    // MiB" and "36.10 MiB".
    EXPECT_NEAR(static_cast<double>(deviceBytes(512, 4)), 19578896.0, kVulkanAlignmentSlack)
        << deviceBytes(512, 4);
    EXPECT_NEAR(static_cast<double>(deviceBytes(1024, 1)), 37855248.0, kVulkanAlignmentSlack);
}

TEST(MambaOnDevice, MambaTwoFollowsVulkansNodeOrder) {
    const ModelInfo model = test::interpretedShape("mamba2.json");
    const RecurrentBlockShape shape = recurrentBlockShape(model);
    const auto blocks = static_cast<std::uint32_t>(model.layers.size());
    // mamba2_ngl_all (4 slots): "Vulkan0 compute buffer size = 27.88 MiB" (ggml-alloc's plan:
    // 29237504 B); -np 1 and -np 1 -ub 1024: "23.32 MiB", "45.89 MiB".
    EXPECT_NEAR(static_cast<double>(mambaTwoDeviceComputeBytes(shape, blocks, 512, 4)), 29237504.0,
                kVulkanAlignmentSlack);
    EXPECT_NEAR(static_cast<double>(mambaTwoDeviceComputeBytes(shape, blocks, 512, 1)) / (1024.0 * 1024.0),
                23.32, 0.005);
    EXPECT_NEAR(static_cast<double>(mambaTwoDeviceComputeBytes(shape, blocks, 1024, 1)) / (1024.0 * 1024.0),
                45.89, 0.005);
    EXPECT_EQ(
        mambaTwoDeviceComputeBytes(recurrentBlockShape(test::interpretedShape("mamba.json")), 24, 512, 1),
        0u);
}

TEST(MambaOnDevice, NothingToPlanIsZero) {
    const RecurrentBlockShape shape = recurrentBlockShape(test::interpretedShape("mamba.json"));
    EXPECT_EQ(mambaOneDeviceComputeBytes(RecurrentBlockShape{}, 24, 512, 1, 1), 0u);
    EXPECT_EQ(mambaOneDeviceComputeBytes(shape, 0, 512, 1, 1), 0u);
    EXPECT_EQ(mambaOneDeviceComputeBytes(shape, 24, 0, 1, 1), 0u);
}

} // namespace
} // namespace llamafit

// The sizing core on a real GPU backend: the Vulkan matrix (tests/support/vulkancases.h)
// against llama-server's Vulkan backend on Mesa's lavapipe (<LLAMAFIT_LLAMA_SERVER_ROOT>/gpu/
// llama-server, lavapipe as Vulkan0 with 2048 MiB), the estimate told about that one device
// (lavapipeDevice()). Per buffer type (Vulkan0, Vulkan_Host, CPU, CPU_Mapped): model, KV, RS
// and output to the printed 0.01 MiB, compute within 5 % (servercomparison.h).
//
// Two suites of the same test: VulkanLive, two settings per shape, is what ctest runs (a few
// minutes on two cores); VulkanMatrix is the whole matrix, which scripts/record-server-runs.sh
// --backend vulkan runs and records (tests/data/recorded/vulkan-lavapipe-b11669, checked without
// a server by tests/unit/recorded).
//
// Environment: LLAMAFIT_GPU_LLAMA_SERVER (the multi-backend wrapper; default from CMake), and
// those of matrixcaserun.h (LLAMAFIT_KEEP_LOGS, LLAMAFIT_INTEGRATION_MAX_MIB).

#include "tests/integration/matrixcaserun.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/vulkancases.h"

#include <gtest/gtest.h>

namespace llamafit::test {

namespace {

class VulkanServerTest : public ::testing::TestWithParam<IntegrationCase> {};

TEST_P(VulkanServerTest, AllocationMatchesEstimate) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto server = findGpuLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    checkCaseAgainstServer(GetParam(), *server);
}

std::string caseName(const ::testing::TestParamInfo<IntegrationCase>& info) {
    return info.param.name();
}

INSTANTIATE_TEST_SUITE_P(VulkanLive, VulkanServerTest, ::testing::ValuesIn(vulkanLiveCases()), caseName);
INSTANTIATE_TEST_SUITE_P(VulkanMatrix, VulkanServerTest, ::testing::ValuesIn(vulkanIntegrationCases()),
                         caseName);

} // namespace
} // namespace llamafit::test

// The seeded random holdout (tests/support/holdoutcases.h) live: each case run against the real
// llama-server and judged like the matrices -- HoldoutCpu on the CPU build (matrixcaserun.h),
// HoldoutVulkan on the Vulkan build with lavapipe as Vulkan0 (matrixcaserun.h), HoldoutRpc with
// ggml-rpc-server on loopback (rpccaserun.h). Not run by ctest (about 20 minutes on two cores):
// scripts/record-server-runs.sh --backend holdout-cpu|holdout-vulkan|holdout-rpc runs one suite and
// records it (tests/data/recorded/holdout-b11669), which tests/unit/recorded/recordedholdout_test.cpp
// judges on every run without a server.
//
// Environment: those of matrixcaserun.h and rpccaserun.h (LLAMAFIT_LLAMA_SERVER,
// LLAMAFIT_GPU_LLAMA_SERVER, LLAMAFIT_RPC_SERVER, LLAMAFIT_KEEP_LOGS).

#include "tests/integration/matrixcaserun.h"
#include "tests/integration/rpccaserun.h"
#include "tests/support/holdoutcases.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"

#include <gtest/gtest.h>

namespace llamafit::test {

void PrintTo(const RpcCase& testCase, std::ostream* out) {
    *out << testCase.name();
}

namespace {

class HoldoutServerTest : public ::testing::TestWithParam<IntegrationCase> {};

TEST_P(HoldoutServerTest, AllocationMatchesEstimate) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const bool vulkan = !GetParam().gpus.empty();
    const auto server = vulkan ? findGpuLlamaServer() : findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    checkCaseAgainstServer(GetParam(), *server);
}

std::string caseName(const ::testing::TestParamInfo<IntegrationCase>& info) {
    return info.param.name();
}

INSTANTIATE_TEST_SUITE_P(HoldoutCpu, HoldoutServerTest,
                         ::testing::ValuesIn(holdoutIntegrationCases(HoldoutBackend::Cpu)), caseName);
INSTANTIATE_TEST_SUITE_P(HoldoutVulkan, HoldoutServerTest,
                         ::testing::ValuesIn(holdoutIntegrationCases(HoldoutBackend::Vulkan)), caseName);

class HoldoutRpcServerTest : public ::testing::TestWithParam<RpcCase> {};

TEST_P(HoldoutRpcServerTest, AllocationMatchesEstimatePerServer) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    checkRpcCaseAgainstServer(GetParam());
}

INSTANTIATE_TEST_SUITE_P(HoldoutRpc, HoldoutRpcServerTest, ::testing::ValuesIn(holdoutRpcCases()),
                         [](const ::testing::TestParamInfo<RpcCase>& info) { return info.param.name(); });

} // namespace
} // namespace llamafit::test

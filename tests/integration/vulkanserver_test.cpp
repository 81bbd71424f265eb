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

#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "core/sizing/solvers.h"
#include "tests/integration/matrixcaserun.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"
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

// A cache tensor over lavapipe's 128 MiB storage range: llama-server aborts in ggml's scheduler
// before it allocates anything, and the estimate says so in ggml's own words and fits no budget.
// Llama-3.2-1B's widths with 2 blocks at -c 262144 -fa off: each layer's K and V are 512 MiB.
TEST(VulkanServerAbort, TheEstimateNamesTheAbortTheServerPrints) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto server = findGpuLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    std::string error;
    const std::string& directory = scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    IntegrationShape shape;
    shape.name = "llama_2_blocks";
    shape.specPath = shapesDirectory() + "/llama.json";
    shape.cut.blockCount = 2;
    const std::string path = materializeShape(shape, directory, error);
    ASSERT_FALSE(path.empty()) << error;
    const auto file = readGgufModel(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    const auto model = interpretModel(*file);
    ASSERT_TRUE(model.ok()) << model.error().message;

    ServerSettings settings;
    settings.contextTokens = 262144;
    settings.parallelSlots = 1;
    settings.flashAttention = FlashAttention::Off;
    settings.gpuLayers = GpuLayers::all();
    settings.repack = false;
    const auto estimate = estimateMemory(*model, settings, {lavapipeDevice()});
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    ASSERT_FALSE(estimate->serverAborts.empty());
    EXPECT_FALSE(fitsBudget(*estimate, MemoryBudget{}));

    ServerRunOptions options;
    options.executable = *server;
    options.args = {"-m", path, "-lv", "4", "--no-warmup", "-fit", "off", "-t", "2"};
    for (const std::string& arg : toServerArgs(settings)) {
        options.args.push_back(arg);
    }
    options.environment = {{"LLAMAFIT_NO_POPULATE", "1"}};
    const auto run = runLlamaServer(options);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_TRUE(run->exitedOnItsOwn) << logTail(run->log);
    EXPECT_NE(run->log.find(estimate->serverAborts), std::string::npos)
        << "the estimate says: " << estimate->serverAborts << "\n"
        << logTail(run->log);

    // Four times less context, each tensor at 128 MiB: the server allocates, and the estimate
    // sizes it with the engine.
    settings.contextTokens = 65536;
    const auto fits = estimateMemory(*model, settings, {lavapipeDevice()});
    ASSERT_TRUE(fits.ok()) << fits.error().message;
    EXPECT_TRUE(fits->serverAborts.empty()) << fits->serverAborts;
    EXPECT_TRUE(fits->computeApproximation.empty()) << fits->computeApproximation;
}

std::string caseName(const ::testing::TestParamInfo<IntegrationCase>& info) {
    return info.param.name();
}

INSTANTIATE_TEST_SUITE_P(VulkanLive, VulkanServerTest, ::testing::ValuesIn(vulkanLiveCases()), caseName);
INSTANTIATE_TEST_SUITE_P(VulkanMatrix, VulkanServerTest, ::testing::ValuesIn(vulkanIntegrationCases()),
                         caseName);

} // namespace
} // namespace llamafit::test

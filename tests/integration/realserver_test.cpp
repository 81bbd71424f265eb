// The proof of the sizing core: for each shape x settings case, write the sparse GGUF,
// run the real llama-server 0.7.0 on it (-lv 4 --no-warmup -fit off -t 2), parse what it
// allocated, and compare with estimateMemory(interpretModel(readGgufModel(file)), settings).
// Cases and tolerances: integrationcases.cpp, servercomparison.h; the run: matrixcaserun.h.
// ctest runs CpuLive, the covering sample of livesample.h (every shape and every settings variant
// once); CpuMatrix, every case, is for scripts/record-server-runs.sh.
//
// Environment: LLAMAFIT_LLAMA_SERVER (the server wrapper; default from CMake), and those of
// matrixcaserun.h (LLAMAFIT_KEEP_LOGS, LLAMAFIT_INTEGRATION_MAX_MIB).

#include "tests/integration/matrixcaserun.h"
#include "tests/support/integrationcases.h"
#include "tests/support/livesample.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"

#include <gtest/gtest.h>

namespace llamafit::test {

namespace {

class RealServerTest : public ::testing::TestWithParam<IntegrationCase> {};

TEST_P(RealServerTest, AllocationMatchesEstimate) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto server = findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    checkCaseAgainstServer(GetParam(), *server);
}

std::string caseName(const ::testing::TestParamInfo<IntegrationCase>& info) {
    return info.param.name();
}

INSTANTIATE_TEST_SUITE_P(CpuLive, RealServerTest, ::testing::ValuesIn(coveringLiveSample(integrationCases())),
                         caseName);
INSTANTIATE_TEST_SUITE_P(CpuMatrix, RealServerTest, ::testing::ValuesIn(integrationCases()), caseName);

} // namespace
} // namespace llamafit::test

// RPC devices against what the real llama-server --rpc printed, without a server: for every case
// of the RPC matrix (tests/support/rpccases.h), the recording of its live run
// (tests/data/recorded/rpc-b11669/<case>.txt, scripts/record-rpc-runs.sh) is judged against
// estimateMemory(the shape's model built in memory, the case's settings, the RPC devices with the
// free memory the recording lists) like the live test does: model, KV, RS and output per server
// exactly, context and caches equal, compute buffers within 5 % (also printed as figures); over
// the matrix, compute within 2 % in at least 95 % of the buffers. A case without a recording and a
// recording without a case both fail.

#include "core/flags/serverargs.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/support/matrixstatistics.h"
#include "tests/support/modelfiles.h"
#include "tests/support/rpccases.h"
#include "tests/unit/recorded/recordedmatrix.h"
#include "tests/unit/recorded/recordedrun.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>

namespace llamafit::test {
namespace {

constexpr const char* kRecordedDir = LLAMAFIT_RECORDED_RPC_RUNS_DIR;
constexpr const char* kRerecord = "; run scripts/record-rpc-runs.sh to bring tests/data/recorded in step";

struct RecordedRpcCase {
    std::string name;
    std::optional<RpcCase> matrixCase;
    std::optional<std::string> recordingPath;
};

void PrintTo(const RecordedRpcCase& recordedCase, std::ostream* out) {
    *out << recordedCase.name;
}

std::vector<RecordedRpcCase> recordedRpcCases() {
    std::map<std::string, RecordedRpcCase> byName;
    for (const RpcCase& matrixCase : rpcCases()) {
        byName[matrixCase.name()] = {matrixCase.name(), matrixCase, std::nullopt};
    }
    for (const std::string& path : recordedRunFiles(kRecordedDir)) {
        const std::string name = std::filesystem::path(path).stem().string();
        byName[name].name = name;
        byName[name].recordingPath = path;
    }
    std::vector<RecordedRpcCase> cases;
    for (auto& [name, recordedCase] : byName) {
        cases.push_back(std::move(recordedCase));
    }
    return cases;
}

class RecordedRpcRunTest : public ::testing::TestWithParam<RecordedRpcCase> {};

TEST_P(RecordedRpcRunTest, AllocationMatchesEstimatePerServer) {
    const RecordedRpcCase& recordedCase = GetParam();
    ASSERT_TRUE(recordedCase.matrixCase.has_value())
        << *recordedCase.recordingPath << " records a case that rpcCases() no longer has" << kRerecord;
    ASSERT_TRUE(recordedCase.recordingPath.has_value())
        << "the RPC case " << recordedCase.name << " has no recording in " << kRecordedDir << kRerecord;
    const RpcCase& matrixCase = *recordedCase.matrixCase;
    const auto run = readRecordedRun(*recordedCase.recordingPath);
    ASSERT_TRUE(run.ok()) << run.error().code << ": " << run.error().message;

    const auto parsed = parseServerArgs(settingsArgs(run->argv));
    ASSERT_TRUE(parsed.ok()) << parsed.error().code << ": " << parsed.error().message;
    EXPECT_EQ(std::filesystem::path(parsed->model).filename().string(), matrixCase.shape.name + ".gguf");
    ASSERT_TRUE(parsed->settings == matrixCase.settings)
        << "the recording's argv does not hold the settings the case has now" << kRerecord;

    const auto model = recordedShapeModel(matrixCase.shape); // recordedmatrix.h: one model per shape
    ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
    const auto devices = devicesFromLog(matrixCase.settings, run->log);
    ASSERT_TRUE(devices.ok()) << devices.error().message;
    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok()) << log.error().code << ": " << log.error().message;
    const RpcVerdict verdict = judgeRpcRun(estimateMemory(*model, matrixCase.settings, *devices), *log);
    for (const ComputeFigure& figure : verdict.compute) {
        char line[256];
        std::snprintf(line, sizeof line, "[ compute  ] %s %s: predicted %.2f MiB, logged %.2f MiB (%+.1f %%)",
                      recordedCase.name.c_str(), figure.bufferType.c_str(), figure.predictedMiB,
                      figure.loggedMiB, 100.0 * (figure.ratio() - 1.0));
        std::cout << line << std::endl;
    }
    EXPECT_TRUE(verdict.passed) << recordedCase.name << " (" << run->serverVersion
                                << "): " << verdict.failure;
}

INSTANTIATE_TEST_SUITE_P(RpcMatrix, RecordedRpcRunTest, ::testing::ValuesIn(recordedRpcCases()),
                         [](const ::testing::TestParamInfo<RecordedRpcCase>& info) {
                             return info.param.name;
                         });

// The bar over the RPC matrix (issue 10): compute within 2 % in at least 95 % of the compute
// buffers (the servers' alone, the host's alone, and both together); every case within 5 % is the
// per-case test above. Prints MatrixStatistics' report.
TEST(RecordedRpcRunsStatisticsTest, ComputeWithinTwoPercentInNinetyFivePercentOfBuffers) {
    MatrixStatistics statistics;
    for (const RecordedRpcCase& recordedCase : recordedRpcCases()) {
        ASSERT_TRUE(recordedCase.matrixCase && recordedCase.recordingPath) << recordedCase.name << kRerecord;
        const auto run = readRecordedRun(*recordedCase.recordingPath);
        ASSERT_TRUE(run.ok()) << run.error().message;
        const auto model = recordedShapeModel(recordedCase.matrixCase->shape);
        ASSERT_TRUE(model.ok()) << model.error().message;
        const auto devices = devicesFromLog(recordedCase.matrixCase->settings, run->log);
        ASSERT_TRUE(devices.ok()) << devices.error().message;
        const auto log = parseAllocationLog(run->log);
        ASSERT_TRUE(log.ok()) << log.error().message;
        const RpcVerdict verdict =
            judgeRpcRun(estimateMemory(*model, recordedCase.matrixCase->settings, *devices), *log);
        statistics.add(recordedCase.name, verdict.run);
    }
    std::cout << statistics.report();
    const BufferTally& device = statistics.deviceCompute();
    const BufferTally& host = statistics.hostCompute();
    EXPECT_EQ(statistics.passed(), statistics.cases());
    EXPECT_GE(device.tight, kComputeTightShare * device.total);
    EXPECT_GE(host.tight, kComputeTightShare * host.total);
    EXPECT_GE(device.tight + host.tight, kComputeTightShare * (device.total + host.total));
}

// The RPC matrix is the "at least 20 cases", and its recordings are of one build.
TEST(RecordedRpcRunsFolderTest, HoldsAtLeastTwentyRunsOfOneServerBuild) {
    EXPECT_GE(rpcCases().size(), 20u);
    const auto files = recordedRunFiles(kRecordedDir);
    ASSERT_GE(files.size(), 20u) << kRecordedDir << kRerecord;
    std::set<std::string> versions;
    for (const std::string& path : files) {
        const auto run = readRecordedRun(path);
        ASSERT_TRUE(run.ok()) << run.error().message;
        versions.insert(run->serverVersion);
    }
    ASSERT_EQ(versions.size(), 1u) << "recordings of more than one build in " << kRecordedDir << kRerecord;
}

} // namespace
} // namespace llamafit::test

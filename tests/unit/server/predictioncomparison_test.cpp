// Predicted versus actual on the real llama-server 0.7.0 logs of tests/data/logs: the sizing
// core's estimate for the same shape and flags (the README's command lines) against what the
// server allocated. Model, KV, RS and output must agree to the log's print precision; compute
// within the 5 % the integration rig allows (the compute model is an approximation).

#include "core/server/predictioncomparison.h"

#include "tests/unit/server/shapeestimate.h"

#include <gtest/gtest.h>

#include "core/common/units.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

namespace llamafit {
namespace {

struct LogCase {
    std::string file;
    std::string shape;
    std::vector<std::string> flags;
    std::optional<GgmlType> weightType;
};

std::ostream& operator<<(std::ostream& out, const LogCase& c) {
    return out << c.file;
}

AllocationLog parseLogFile(const std::string& name) {
    std::ifstream in(std::string(LLAMAFIT_TEST_LOGS_DIR) + "/" + name);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_FALSE(text.str().empty()) << name;
    auto log = parseAllocationLog(text.str());
    EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
    return log.ok() ? *log : AllocationLog{};
}

MemoryEstimate estimateFor(const LogCase& c) {
    auto run = testdata::shapeRun(c.shape, c.flags, c.weightType);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().message);
    if (!run.ok()) {
        return {};
    }
    auto estimate = estimateMemory(run->model, run->args.settings, run->args.gpus);
    EXPECT_TRUE(estimate.ok()) << (estimate.ok() ? "" : estimate.error().message);
    return estimate.ok() ? *estimate : MemoryEstimate{};
}

class PredictionComparisonLogTest : public ::testing::TestWithParam<LogCase> {};

TEST_P(PredictionComparisonLogTest, BuffersMatchTheRealServer) {
    const LogCase& c = GetParam();
    const AllocationLog log = parseLogFile(c.file);
    const PredictionComparison comparison = comparePrediction(estimateFor(c), log);
    SCOPED_TRACE(formatPredictionComparison(comparison));

    ASSERT_EQ(comparison.devices.size(), 1u); // CPU-only captures
    const DeviceComparison& cpu = comparison.devices[0];
    EXPECT_EQ(cpu.name, "CPU");
    EXPECT_TRUE(cpu.host);
    ASSERT_EQ(cpu.components.size(), 5u);
    for (const ComponentComparison& component : cpu.components) {
        SCOPED_TRACE(std::string(componentName(component.component)));
        if (component.component == Component::Compute) {
            ASSERT_TRUE(component.relativeError);
            EXPECT_LE(std::fabs(*component.relativeError), 0.05);
            continue;
        }
        EXPECT_FALSE(component.flagged);
        EXPECT_LE(std::fabs(component.errorMiB), component.printToleranceMiB + 1e-6);
    }
    EXPECT_GT(cpu.find(Component::Model)->actualMiB, 0.0);
    EXPECT_GT(cpu.actualTotalMiB, 0.0);
    EXPECT_NEAR(cpu.actualTotalMiB, log.devices()[0].totalMiB(), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(
    RealLogs, PredictionComparisonLogTest,
    ::testing::Values(
        LogCase{"llama1b-f16-c4096-np1.log", "llama", {"-c", "4096", "-np", "1"}, {}},
        LogCase{"llama1b-f16-c4096-npauto.log", "llama", {"-c", "4096"}, {}},
        LogCase{"llama1b-f16-c10000-np3.log", "llama", {"-c", "10000", "-np", "3"}, {}},
        LogCase{"llama1b-f16-c4096-np1-fa-off-q8k.log",
                "llama",
                {"-c", "4096", "-np", "1", "-fa", "off", "-ctk", "q8_0"},
                {}},
        LogCase{"llama1b-q4_0-c4096-np1-repack.log", "llama", {"-c", "4096", "-np", "1"}, GgmlType::Q4_0},
        LogCase{"qwen35moe-q8-c4096-npauto.log", "qwen35moe", {"-c", "4096"}, {}},
        LogCase{"qwen35moe-q8-c32768-np4.log", "qwen35moe", {"-c", "32768", "-np", "4"}, {}},
        LogCase{"gemma3-q8-c8192-npauto.log", "gemma3", {"-c", "8192"}, {}},
        LogCase{"gemma3-q8-c8192-np4-swafull.log", "gemma3", {"-c", "8192", "-np", "4", "--swa-full"}, {}}),
    [](const ::testing::TestParamInfo<LogCase>& info) {
        std::string name;
        for (char ch : info.param.file.substr(0, info.param.file.size() - 4)) {
            name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
        }
        return name;
    });

// One real log, with the prediction made wrong on purpose: the flag and the sign of the error.
TEST(PredictionComparisonTest, FlagsAComponentOffByMoreThanOnePercent) {
    const LogCase c{"llama1b-f16-c4096-np1.log", "llama", {"-c", "4096", "-np", "1"}, {}};
    MemoryEstimate estimate = estimateFor(c);
    ASSERT_FALSE(estimate.devices.empty());
    estimate.devices[0].bytes.kvBytes += estimate.devices[0].bytes.kvBytes / 50; // +2 %
    const PredictionComparison comparison = comparePrediction(estimate, parseLogFile(c.file));
    ASSERT_EQ(comparison.devices.size(), 1u);
    const ComponentComparison* kv = comparison.devices[0].find(Component::Kv);
    ASSERT_NE(kv, nullptr);
    EXPECT_TRUE(kv->flagged);
    EXPECT_NEAR(kv->errorMiB, 128.0 / 50, 0.01);
    ASSERT_TRUE(kv->relativeError);
    EXPECT_NEAR(*kv->relativeError, 0.02, 0.0001);
    EXPECT_FALSE(comparison.devices[0].find(Component::Model)->flagged);
    EXPECT_TRUE(comparison.anyFlagged());
    EXPECT_NE(formatPredictionComparison(comparison).find("! CPU"), std::string::npos);

    // Half a percent off is not flagged.
    estimate.devices[0].bytes.kvBytes = estimate.devices[0].bytes.kvBytes * 50 / 51 * 201 / 200;
    EXPECT_FALSE(comparePrediction(estimate, parseLogFile(c.file)).devices[0].find(Component::Kv)->flagged);
}

// A GPU the estimate names by a user label is paired with the logged CUDA0; a predicted
// buffer the server never allocated is flagged (nothing logged, something predicted).
TEST(PredictionComparisonTest, PairsGpuByOrderAndFlagsMissingBuffers) {
    const std::string text = "load_tensors:   CPU_Mapped model buffer size =   100.00 MiB\n"
                             "load_tensors:        CUDA0 model buffer size =  1000.00 MiB\n"
                             "llama_kv_cache:      CUDA0 KV buffer size =   256.00 MiB\n"
                             "sched_reserve:      CUDA0 compute buffer size =   300.00 MiB\n"
                             "sched_reserve:  CUDA_Host compute buffer size =    20.00 MiB\n";
    const auto log = parseAllocationLog(text);
    ASSERT_TRUE(log.ok());
    MemoryEstimate estimate;
    estimate.devices.push_back(DeviceEstimate{"CPU", true, {}, {}});
    estimate.devices[0].bytes.modelBytes = 100 * kMiB;
    estimate.devices[0].bytes.computeBytes = 20 * kMiB;
    estimate.devices.push_back(DeviceEstimate{"RTX 4090", false, {}, {}});
    estimate.devices[1].bytes.modelBytes = 1000 * kMiB;
    estimate.devices[1].bytes.kvBytes = 256 * kMiB;
    estimate.devices[1].bytes.outputBytes = 5 * kMiB; // not in the log
    estimate.devices[1].bytes.computeBytes = 290 * kMiB;
    estimate.devices[1].bytes.overheadBytes = 400 * kMiB; // never compared
    const PredictionComparison comparison = comparePrediction(estimate, *log);
    ASSERT_EQ(comparison.devices.size(), 2u);
    EXPECT_EQ(comparison.devices[0].name, "CPU");
    EXPECT_FALSE(comparison.devices[0].anyFlagged());
    const DeviceComparison* gpu = comparison.find("CUDA0");
    ASSERT_NE(gpu, nullptr);
    EXPECT_FALSE(gpu->find(Component::Model)->flagged);
    EXPECT_FALSE(gpu->find(Component::Kv)->flagged);
    EXPECT_TRUE(gpu->find(Component::Output)->flagged);
    EXPECT_FALSE(gpu->find(Component::Output)->relativeError);
    EXPECT_TRUE(gpu->find(Component::Compute)->flagged); // -3.3 %
    EXPECT_NEAR(*gpu->find(Component::Compute)->relativeError, -10.0 / 300, 1e-9);
    EXPECT_NEAR(gpu->predictedTotalMiB, 1551.0, 1e-9);
    EXPECT_NEAR(gpu->actualTotalMiB, 1556.0, 1e-9);
}

} // namespace
} // namespace llamafit

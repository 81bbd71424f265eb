// Vision projectors (issue 11 item 3) against what the real llama-server 0.7.0 printed, without a
// server: tests/data/recorded/mmproj-b11669, written by scripts/record-mtp-runs.sh --matrix mmproj
// (which holds the case table; each recording's argv is its case). Every recording is judged
// against withProjector(estimateMemory(the text model its -m names), the projector its --mmproj
// names, built in memory from tests/data/shapes/mmproj; the settings its argv holds, read by the
// flag table): the projector's weights ("load_hparams: model size") to the printed 0.01 MiB, its
// warm-up image ("get_dummy_batch: warmup with image size") exactly, its compute buffer
// ("reserve_compute_meta: CPU compute buffer size") within 5 %, all on the CPU; and the width
// mismatch llama-server refuses is refused.

#include "core/common/units.h"
#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/model/projectorinfo.h"
#include "core/sizing/estimator.h"
#include "core/sizing/projectorbuffers.h"
#include "tests/support/integrationcases.h"
#include "tests/support/modelfiles.h"
#include "tests/support/projectorlog.h"
#include "tests/unit/recorded/recordedmatrix.h"
#include "tests/unit/recorded/recordedrun.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>

namespace llamafit::test {
namespace {

constexpr const char* kRecordedDir = LLAMAFIT_RECORDED_MMPROJ_RUNS_DIR;
constexpr const char* kRerecord = "; run scripts/record-mtp-runs.sh --matrix mmproj";

Result<ModelInfo> textModel(const std::string& stem) {
    if (stem == "tiny") {
        const auto file = ggufFileForSpec(tinyModelSpec());
        if (!file) {
            return file.error();
        }
        return interpretModel(*file);
    }
    IntegrationShape shape;
    shape.name = stem;
    shape.specPath = shapesDirectory() + "/" + stem + ".json";
    return recordedShapeModel(shape);
}

std::string caseName(const std::string& path) {
    return std::filesystem::path(path).stem().string();
}

class RecordedProjectorRunTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedProjectorRunTest, ProjectorBuffersMatchTheServer) {
    const auto run = readRecordedRun(GetParam());
    ASSERT_TRUE(run.ok()) << run.error().code << ": " << run.error().message;
    const auto parsed = parseServerArgs(settingsArgs(run->argv));
    ASSERT_TRUE(parsed.ok()) << parsed.error().code << ": " << parsed.error().message;
    EXPECT_TRUE(parsed->unmodelledFlags.empty()) << "the case passes a flag the estimate does not model";
    ASSERT_FALSE(parsed->settings.projector.path.empty()) << "a projector case without --mmproj";
    const auto model = textModel(std::filesystem::path(parsed->model).stem().string());
    ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
    const auto projector = projectorShape(parsed->settings.projector.path);
    ASSERT_TRUE(projector.ok()) << projector.error().code << ": " << projector.error().message;
    const auto estimate = estimateMemory(*model, parsed->settings);
    ASSERT_TRUE(estimate.ok()) << estimate.error().code << ": " << estimate.error().message;
    const auto withIt = withProjector(*estimate, *model, *projector, parsed->settings, {});
    const ProjectorLogLines logged = projectorLogLines(run->log);
    if (logged.widthMismatch) {
        ASSERT_FALSE(withIt.ok()) << caseName(GetParam()) << ": llama-server refused the projector's width";
        EXPECT_EQ(withIt.error().code, "projector.width-mismatch");
        return;
    }
    ASSERT_TRUE(withIt.ok()) << withIt.error().code << ": " << withIt.error().message;
    ASSERT_TRUE(logged.weightMiB && logged.warmupSide && logged.computeMiB)
        << caseName(GetParam()) << ": the recording lacks a projector line" << kRerecord;
    const ProjectorBuffers buffers = projectorBuffers(*projector, parsed->settings, {});
    std::uint64_t hostProjectorBytes = 0;
    for (const BufferEstimate& buffer : withIt->devices.front().buffers) {
        hostProjectorBytes += buffer.owner == BufferOwner::Projector ? buffer.bytes : 0;
    }
    EXPECT_EQ(hostProjectorBytes, buffers.weightBytes + buffers.computeBytes) << "both on the CPU";
    const double weightMiB = toMiB(buffers.weightBytes);
    const double computeMiB = toMiB(buffers.computeBytes);
    std::printf("[ figures  ] %s: weights %.2f vs %.2f MiB, warm-up %u vs %d px, compute %.2f vs %.2f MiB "
                "(%+.2f %%)\n",
                caseName(GetParam()).c_str(), weightMiB, *logged.weightMiB, buffers.warmupImageSide,
                *logged.warmupSide, computeMiB, *logged.computeMiB,
                100.0 * (computeMiB - *logged.computeMiB) / *logged.computeMiB);
    EXPECT_NEAR(weightMiB, *logged.weightMiB, 0.005) << caseName(GetParam());
    EXPECT_EQ(static_cast<int>(buffers.warmupImageSide), *logged.warmupSide) << caseName(GetParam());
    EXPECT_NEAR(computeMiB, *logged.computeMiB, 0.05 * *logged.computeMiB) << caseName(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Recorded, RecordedProjectorRunTest,
                         ::testing::ValuesIn(recordedRunFiles(kRecordedDir)),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return caseName(info.param);
                         });

// The issue's bar: at least 6 runs with the projector's buffers, a refusal, both kinds, one build.
TEST(RecordedProjectorRunsFolderTest, HoldsTheIssuesCasesOfOneBuild) {
    std::set<std::string> versions;
    std::size_t withBuffers = 0;
    std::size_t refused = 0;
    for (const std::string& path : recordedRunFiles(kRecordedDir)) {
        const auto run = readRecordedRun(path);
        ASSERT_TRUE(run.ok()) << run.error().message;
        versions.insert(run->serverVersion);
        const ProjectorLogLines lines = projectorLogLines(run->log);
        withBuffers += lines.weightMiB && lines.computeMiB ? 1 : 0;
        refused += lines.widthMismatch ? 1 : 0;
    }
    EXPECT_GE(withBuffers, 6u) << kRecordedDir << kRerecord;
    EXPECT_GE(refused, 1u) << kRecordedDir << kRerecord;
    ASSERT_EQ(versions.size(), 1u) << "recordings of more than one build in " << kRecordedDir << kRerecord;
    EXPECT_NE(versions.begin()->find("(build 11669"), std::string::npos) << *versions.begin();
}

} // namespace
} // namespace llamafit::test

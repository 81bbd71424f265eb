// The sizing core against what the real llama-server printed, on every run, without a server:
// for every case of an integration matrix -- the CPU one (integrationcases.h) or the Vulkan one
// (vulkancases.h), chosen by LLAMAFIT_RECORDED_MATRIX when this file is compiled -- the
// recording of the live run (tests/data/recorded/<folder>/<case>.txt, scripts/record-server-runs.sh)
// is judged against the estimate with the live suite's tolerances (recordedmatrix.h,
// servercomparison.h). One test per case, so a failure names it; a case without a recording and
// a recording without a case both fail, so the two stay in step. The matrix's figures (issue 10's
// closing note: matrixstatistics.h) are printed by RecordedMatrixStatisticsTest.

#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "tests/support/integrationcases.h"
#include "tests/support/matrixstatistics.h"
#include "tests/support/modelfiles.h"
#include "tests/support/vulkancases.h"
#include "tests/unit/recorded/recordedmatrix.h"
#include "tests/unit/recorded/recordedrun.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <unistd.h>

namespace llamafit::test {
namespace {

const RecordedMatrix kMatrix = recordedMatrixFromName(LLAMAFIT_RECORDED_MATRIX).value();

class RecordedRunTest : public ::testing::TestWithParam<RecordedCase> {};

TEST_P(RecordedRunTest, AllocationMatchesEstimate) {
    const RecordedCase& recordedCase = GetParam();
    const auto judged = judgeRecordedCase(recordedCase, kMatrix);
    ASSERT_TRUE(judged.ok()) << judged.error().code << ": " << judged.error().message;
    if (judged->notRecorded) {
        GTEST_SKIP() << "not recorded: " << *judged->notRecorded;
    }
    EXPECT_TRUE(judged->verdict.passed)
        << recordedCase.name << " (" << judged->serverVersion << "): " << judged->verdict.failure;
}

INSTANTIATE_TEST_SUITE_P(Matrix, RecordedRunTest, ::testing::ValuesIn(recordedCases(kMatrix)),
                         [](const ::testing::TestParamInfo<RecordedCase>& info) { return info.param.name; });

// The recordings' folder is there and holds the pinned build's runs (an empty or missing
// folder would otherwise show up only as one failure per case).
TEST(RecordedRunsFolderTest, HoldsRunsOfOneServerBuild) {
    const std::string directory = recordedRunsDirectory(kMatrix);
    const auto files = recordedRunFiles(directory);
    ASSERT_FALSE(files.empty()) << directory << " holds no recordings; run scripts/record-server-runs.sh";
    std::set<std::string> versions;
    for (const std::string& path : files) {
        const auto run = readRecordedRun(path);
        ASSERT_TRUE(run.ok()) << run.error().message;
        versions.insert(run->serverVersion);
    }
    ASSERT_EQ(versions.size(), 1u) << "recordings of more than one build in " << directory;
    EXPECT_NE(versions.begin()->find("(build 11669"), std::string::npos) << *versions.begin();
}

// Issue 10's figures over the whole recorded matrix, printed on every run. On the Vulkan matrix
// it also holds the issue's bar: every case passes, and device and host compute buffers are
// within 2 % in at least 95 % of cases (5 % in all is each case's own tolerance).
TEST(RecordedMatrixStatisticsTest, ReportsIssue10Figures) {
    MatrixStatistics statistics;
    for (const RecordedCase& recordedCase : recordedCases(kMatrix)) {
        const auto judged = judgeRecordedCase(recordedCase, kMatrix);
        if (!judged) {
            RunVerdict failed;
            failed.failure = judged.error().code + ": " + judged.error().message;
            statistics.add(recordedCase.name, failed);
        } else if (!judged->notRecorded) {
            statistics.add(recordedCase.name, judged->verdict);
        }
    }
    std::cout << "[ figures  ] " << LLAMAFIT_RECORDED_MATRIX << " matrix, " << recordedRunsDirectory(kMatrix)
              << ":\n"
              << statistics.report() << std::flush;
    ASSERT_GT(statistics.cases(), 0u);
    if (kMatrix == RecordedMatrix::Vulkan) {
        EXPECT_TRUE(statistics.meetsIssueTolerances()) << "issue 10's bar is not met: the figures are above";
    }
}

std::vector<IntegrationShape> matrixShapes() {
    return kMatrix == RecordedMatrix::Vulkan ? vulkanShapes() : integrationShapes();
}

// The unit tests size the shapes from the GgufFile built in memory; the live suite reads the
// sparse file written from it. Both must give the same model, or the recordings would check
// something else than the live runs did. The file's size on disk is the one thing the file adds.
class InMemoryShapeTest : public ::testing::TestWithParam<IntegrationShape> {};

TEST_P(InMemoryShapeTest, InterpretsLikeTheWrittenFile) {
    const IntegrationShape& shape = GetParam();
    const auto fromMemory = recordedShapeModel(shape);
    ASSERT_TRUE(fromMemory.ok()) << fromMemory.error().message;
    const auto spec = loadIntegrationShape(shape);
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("llamafit-recorded-" + std::to_string(::getpid()) + "-" + shape.name + ".gguf");
    const auto written = writeSpecAsGguf(*spec, path.string());
    ASSERT_TRUE(written.ok()) << written.error().message;
    const auto file = readGgufModel(path.string());
    std::filesystem::remove(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    auto fromFile = interpretModel(*file);
    ASSERT_TRUE(fromFile.ok()) << fromFile.error().message;
    fromFile->fileBytes = fromMemory->fileBytes;
    EXPECT_TRUE(*fromFile == *fromMemory)
        << shape.name << ": the spec and its written file interpret differently";
}

INSTANTIATE_TEST_SUITE_P(Shapes, InMemoryShapeTest, ::testing::ValuesIn(matrixShapes()),
                         [](const ::testing::TestParamInfo<IntegrationShape>& info) {
                             return info.param.name;
                         });

} // namespace

// gtest names a failing shape parameter with this instead of a byte dump.
void PrintTo(const IntegrationShape& shape, std::ostream* out) {
    *out << shape.name;
}

} // namespace llamafit::test

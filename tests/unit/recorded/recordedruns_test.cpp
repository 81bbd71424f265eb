// The sizing core against what the real llama-server printed, on every run, without a server:
// for every case of the integration matrix (tests/support/integrationcases.cpp), the recording
// of the live run (tests/data/recorded/<build>/<case>.txt, scripts/record-server-runs.sh) is
// parsed with parseAllocationLog and judged against estimateMemory(interpretModel(the shape's
// GgufFile, built in memory from its spec), the case's settings) with the live suite's
// tolerances (tests/support/servercomparison.h). One test per case, so a failure names it; a
// case without a recording and a recording without a case both fail, so the two stay in step.

#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/support/integrationcases.h"
#include "tests/support/modelfiles.h"
#include "tests/support/servercomparison.h"
#include "tests/unit/recorded/recordedrun.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unistd.h>

namespace llamafit::test {
namespace {

constexpr const char* kRecordedDir = LLAMAFIT_RECORDED_RUNS_DIR;
constexpr const char* kRerecord =
    "; run scripts/record-server-runs.sh (with the pinned llama-server) to bring tests/data/recorded in step";

// A case of the matrix, its recording, or (when they are out of step) only one of them.
struct RecordedCase {
    std::string name;
    std::optional<IntegrationCase> matrixCase;
    std::optional<std::string> recordingPath;
};

void PrintTo(const RecordedCase& recordedCase, std::ostream* out) {
    *out << recordedCase.name;
}

std::vector<RecordedCase> recordedCases() {
    std::map<std::string, RecordedCase> byName;
    for (const IntegrationCase& matrixCase : integrationCases()) {
        byName[matrixCase.name()] = {matrixCase.name(), matrixCase, std::nullopt};
    }
    for (const std::string& path : recordedRunFiles(kRecordedDir)) {
        const std::string name = std::filesystem::path(path).stem().string();
        byName[name].name = name;
        byName[name].recordingPath = path;
    }
    std::vector<RecordedCase> cases;
    for (auto& [name, recordedCase] : byName) {
        cases.push_back(std::move(recordedCase));
    }
    return cases;
}

// The shape's model as the server saw it: the GgufFile writeSpecAsGguf would write, built in
// memory (interpreted once per shape in this process).
Result<ModelInfo> modelOf(const IntegrationShape& shape) {
    static std::map<std::string, Result<ModelInfo>> models;
    if (const auto it = models.find(shape.name); it != models.end()) {
        return it->second;
    }
    Result<ModelInfo> model = [&]() -> Result<ModelInfo> {
        const auto spec = loadModelSpecFile(shape.specPath);
        if (!spec) {
            return spec.error();
        }
        const auto file = ggufFileForSpec(*spec);
        if (!file) {
            return file.error();
        }
        return interpretModel(*file);
    }();
    models.emplace(shape.name, model);
    return model;
}

// The recorded argv without what the runner adds (--host/--port): the settings the server got.
std::vector<std::string> settingsArgs(const std::vector<std::string>& argv) {
    std::vector<std::string> args;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if ((argv[i] == "--host" || argv[i] == "--port") && i + 1 < argv.size()) {
            ++i;
        } else {
            args.push_back(argv[i]);
        }
    }
    return args;
}

std::string joinedWords(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

class RecordedRunTest : public ::testing::TestWithParam<RecordedCase> {};

TEST_P(RecordedRunTest, AllocationMatchesEstimate) {
    const RecordedCase& recordedCase = GetParam();
    ASSERT_TRUE(recordedCase.matrixCase.has_value())
        << *recordedCase.recordingPath
        << " records a case that integrationCases() (tests/support/integrationcases.cpp) no longer has"
        << kRerecord;
    ASSERT_TRUE(recordedCase.recordingPath.has_value())
        << "the integration case " << recordedCase.name << " has no recording in " << kRecordedDir
        << kRerecord;
    const IntegrationCase& matrixCase = *recordedCase.matrixCase;
    const auto run = readRecordedRun(*recordedCase.recordingPath);
    ASSERT_TRUE(run.ok()) << run.error().code << ": " << run.error().message;
    if (run->notRecorded) {
        GTEST_SKIP() << "not recorded: " << *run->notRecorded;
    }

    // The recording must be of this case as it is defined now: same shape, same settings.
    const auto parsed = parseServerArgs(settingsArgs(run->argv));
    ASSERT_TRUE(parsed.ok()) << parsed.error().code << ": " << parsed.error().message;
    EXPECT_EQ(std::filesystem::path(parsed->model).filename().string(), matrixCase.shape.name + ".gguf");
    ASSERT_TRUE(parsed->settings == matrixCase.settings)
        << "the recording ran `llama-server " << joinedWords(run->argv)
        << "`, which are not the settings the case has now" << kRerecord;

    const auto model = modelOf(matrixCase.shape);
    ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok()) << log.error().code << ": " << log.error().message;
    const RunVerdict verdict = judgeServerRun(estimateMemory(*model, matrixCase.settings), *log);
    EXPECT_TRUE(verdict.passed) << recordedCase.name << " (" << run->serverVersion
                                << "): " << verdict.failure;
}

INSTANTIATE_TEST_SUITE_P(Matrix, RecordedRunTest, ::testing::ValuesIn(recordedCases()),
                         [](const ::testing::TestParamInfo<RecordedCase>& info) { return info.param.name; });

// The recordings' folder is there and holds the pinned build's runs (an empty or missing
// folder would otherwise show up only as one failure per case).
TEST(RecordedRunsFolderTest, HoldsRunsOfOneServerBuild) {
    const auto files = recordedRunFiles(kRecordedDir);
    ASSERT_FALSE(files.empty()) << kRecordedDir << " holds no recordings" << kRerecord;
    std::set<std::string> versions;
    for (const std::string& path : files) {
        const auto run = readRecordedRun(path);
        ASSERT_TRUE(run.ok()) << run.error().message;
        versions.insert(run->serverVersion);
    }
    ASSERT_EQ(versions.size(), 1u) << "recordings of more than one build in " << kRecordedDir << kRerecord;
    EXPECT_NE(versions.begin()->find("(build 11669"), std::string::npos) << *versions.begin();
}

// The unit tests size the shapes from the GgufFile built in memory; the live suite reads the
// sparse file written from it. Both must give the same model, or the recordings would check
// something else than the live runs did. The file's size on disk is the one thing the file adds.
class InMemoryShapeTest : public ::testing::TestWithParam<IntegrationShape> {};

TEST_P(InMemoryShapeTest, InterpretsLikeTheWrittenFile) {
    const IntegrationShape& shape = GetParam();
    const auto fromMemory = modelOf(shape);
    ASSERT_TRUE(fromMemory.ok()) << fromMemory.error().message;
    const auto spec = loadModelSpecFile(shape.specPath);
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

INSTANTIATE_TEST_SUITE_P(Shapes, InMemoryShapeTest, ::testing::ValuesIn(integrationShapes()),
                         [](const ::testing::TestParamInfo<IntegrationShape>& info) {
                             return info.param.name;
                         });

} // namespace

// gtest names a failing shape parameter with this instead of a byte dump.
void PrintTo(const IntegrationShape& shape, std::ostream* out) {
    *out << shape.name;
}

} // namespace llamafit::test

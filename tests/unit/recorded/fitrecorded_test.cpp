// The fit replica (core/sizing/fitreplica.h) against the recorded llama-fit-params runs of the
// fit cases (tests/data/fit-recorded/b11669, written by tests/integration/fitparams_test.cpp with
// LLAMAFIT_RECORD_FIT_DIR): the case's model is built in memory from its shape, the replica is
// fed the recorded flags and memory, and it must print what the tool printed. No tool, no file.

#include "tests/support/fitcases.h"
#include "tests/support/fitholdoutcases.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace llamafit::test {

void PrintTo(const FitCase& fitCase, std::ostream* out) {
    *out << fitCase.name;
}

namespace {

std::string recordingPath(const std::string& caseName) {
    return std::string(LLAMAFIT_FIT_RECORDINGS_DIR) + "/" + caseName + ".txt";
}

class FitRecorded : public ::testing::TestWithParam<FitCase> {};

TEST_P(FitRecorded, ReplicaPrintsWhatTheToolPrinted) {
    const FitCase& fitCase = GetParam();
    std::ifstream in(recordingPath(fitCase.name));
    ASSERT_TRUE(in) << "no recording for " << fitCase.name
                    << ": run tests/integration's FitParamsLive with LLAMAFIT_RECORD_FIT_DIR="
                    << LLAMAFIT_FIT_RECORDINGS_DIR;
    std::stringstream text;
    text << in.rdbuf();
    Result<FitRecording> recording = parseFitRecording(text.str());
    ASSERT_TRUE(recording) << recording.error().message;
    Result<FitReplicaAnswer> answer = replicaAnswer(fitCase, *recording);
    ASSERT_TRUE(answer) << answer.error().code << ": " << answer.error().message;
    if (toolAborted(*recording)) {
        GTEST_SKIP() << "llama-fit-params aborted (exit " << recording->exitCode
                     << "): its run says nothing about the fit";
    }
    if (!fitCase.knownDifference.empty()) {
        EXPECT_NE(answer->stdoutText + answer->reason, recording->stdoutText + recording->reason)
            << "the replica now agrees: drop the case's knownDifference";
        GTEST_SKIP() << "known difference: " << fitCase.knownDifference;
    }
    EXPECT_EQ(answer->exitCode, recording->exitCode);
    EXPECT_EQ(answer->stdoutText, recording->stdoutText);
    EXPECT_EQ(answer->reason, recording->reason);
}

INSTANTIATE_TEST_SUITE_P(Cases, FitRecorded, ::testing::ValuesIn(fitCases()),
                         [](const ::testing::TestParamInfo<FitCase>& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Holdout, FitRecorded, ::testing::ValuesIn(fitHoldoutCases()),
                         [](const ::testing::TestParamInfo<FitCase>& info) { return info.param.name; });

// The holdout is only a check while most of its runs complete: a generator whose cases mostly
// abort the tool (or a tool that aborts more) would pass by skipping.
TEST(FitHoldout, MostRunsComplete) {
    std::size_t completed = 0;
    for (const FitCase& fitCase : fitHoldoutCases()) {
        std::ifstream in(recordingPath(fitCase.name));
        ASSERT_TRUE(in) << "no recording for " << fitCase.name;
        std::stringstream text;
        text << in.rdbuf();
        Result<FitRecording> recording = parseFitRecording(text.str());
        ASSERT_TRUE(recording) << recording.error().message;
        completed += toolAborted(*recording) ? 0 : 1;
    }
    EXPECT_GE(completed * 10, fitHoldoutCases().size() * 8)
        << completed << " of " << fitHoldoutCases().size();
}

TEST(FitRecordings, EveryRecordingHasItsCase) {
    std::set<std::string> names;
    for (const FitCase& fitCase : fitCases()) {
        names.insert(fitCase.name);
    }
    for (const FitCase& fitCase : fitHoldoutCases()) {
        names.insert(fitCase.name);
    }
    for (const auto& entry : std::filesystem::directory_iterator(LLAMAFIT_FIT_RECORDINGS_DIR)) {
        if (entry.path().extension() == ".txt") {
            EXPECT_TRUE(names.contains(entry.path().stem().string()))
                << entry.path() << " has no case in tests/support/fitcases.cpp or fitholdoutcases.cpp";
        }
    }
}

TEST(FitRecordings, FormatReadsBack) {
    FitRecording recording;
    recording.args = {"-t", "2", "-fitt", "512"};
    recording.hostTotalBytes = 25276502016;
    recording.devices = {{"Vulkan0", 2048}};
    recording.exitCode = 1;
    recording.reason =
        "failed to fit params to free device memory: n_gpu_layers already set by user to 7, abort";
    Result<FitRecording> back = parseFitRecording(formatFitRecording("x", recording));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, recording);
    EXPECT_EQ(parseFitRecording("args: -t 2\n").error().code, "test.bad-recording");
}

} // namespace

} // namespace llamafit::test

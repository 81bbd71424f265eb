// BoundedLog: a short log comes back byte for byte; a long one stays within its budgets and
// keeps every line the allocation-log parser and the failure classifier read, checked on
// real llama-server 0.7.0 logs with noise inserted between their lines.

#include "core/server/boundedlog.h"

#include "core/server/allocationlog.h"
#include "core/server/launchfailure.h"
#include "serverdata.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace llamafit {
namespace {

std::string readLog(const std::string& name) {
    std::ifstream file(std::string(LLAMAFIT_TEST_LOGS_DIR) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// A -lv 4 line that no diagnosis reads (tools/server's request log).
constexpr std::string_view kNoiseLine =
    "0.05.123.456 I srv  log_server_r: done request: GET /health 127.0.0.1 200\n";

// Small budgets, so that a few KiB of noise already push lines out.
BoundedLogLimits smallLimits() {
    BoundedLogLimits limits;
    limits.headBytes = 2 * 1024;
    limits.diagnosticBytes = 256 * 1024;
    limits.recentBytes = 4 * 1024;
    limits.lineBytes = 1024;
    return limits;
}

// `log` after 100 noise lines (beyond the head) and with `noiseLines` noise lines after each
// of its lines, fed in 4000-byte chunks.
BoundedLog feedWithNoise(const std::string& log, int noiseLines, const BoundedLogLimits& limits) {
    std::string noisy;
    for (int i = 0; i < 100; ++i) {
        noisy += kNoiseLine;
    }
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        noisy += line + "\n";
        for (int i = 0; i < noiseLines; ++i) {
            noisy += kNoiseLine;
        }
    }
    BoundedLog bounded(limits);
    for (std::size_t at = 0; at < noisy.size(); at += 4000) {
        bounded.append(std::string_view(noisy).substr(at, 4000));
    }
    return bounded;
}

TEST(BoundedLog, ShortLogComesBackByteForByte) {
    const std::string log = "line one\r\nline two\n\nno newline yet";
    BoundedLog bounded;
    std::vector<std::string> seen;
    bounded.append(log.substr(0, 5), [&](std::string_view line) { seen.emplace_back(line); });
    bounded.append(log.substr(5), [&](std::string_view line) { seen.emplace_back(line); });
    EXPECT_EQ(bounded.text(), log);
    EXPECT_EQ(seen, (std::vector<std::string>{"line one", "line two", ""}));
    EXPECT_EQ(bounded.pendingLine(), "no newline yet");
    EXPECT_EQ(bounded.receivedBytes(), log.size());
    EXPECT_EQ(bounded.droppedBytes(), 0u);
}

TEST(BoundedLog, RealStartupLogsFitTheDefaultHead) {
    const std::string log = readLog("qwen35moe-q8-c32768-np4.log");
    BoundedLog bounded;
    bounded.append(log);
    EXPECT_EQ(bounded.text(), log);
}

TEST(BoundedLog, StaysWithinItsCapAndMarksTheGap) {
    const BoundedLogLimits limits = smallLimits();
    BoundedLog bounded(limits);
    std::uint64_t fed = 0;
    for (int i = 0; i < 20000; ++i) {
        bounded.append(kNoiseLine);
        fed += kNoiseLine.size();
        ASSERT_LE(bounded.storedBytes(), limits.capBytes()) << "after line " << i;
    }
    EXPECT_EQ(bounded.receivedBytes(), fed);
    const std::string text = bounded.text();
    EXPECT_LT(text.size(), limits.headBytes + limits.recentBytes + 200);
    EXPECT_NE(text.find(" lines of llama-server output not kept (bounded log)]\n"), std::string::npos);
    // What was dropped is what is missing from the text (the marker line aside).
    const std::size_t markerEnd = text.find("(bounded log)]\n") + 15;
    const std::size_t markerStart = text.rfind('\n', text.find("[llamafit: ")) + 1;
    EXPECT_EQ(text.size() - (markerEnd - markerStart) + bounded.droppedBytes(), fed);
    // The newest line is last.
    EXPECT_EQ(text.substr(text.size() - kNoiseLine.size()), kNoiseLine);
}

TEST(BoundedLog, ShortFloodLinesCannotExceedTheCap) {
    const BoundedLogLimits limits = smallLimits();
    BoundedLog bounded(limits);
    for (int i = 0; i < 100000; ++i) {
        bounded.append("y\n");
    }
    EXPECT_LE(bounded.storedBytes(), limits.capBytes());
    EXPECT_LT(bounded.text().size(), limits.headBytes + limits.recentBytes);
}

TEST(BoundedLog, AnOverlongLineKeepsItsStartAndCountsTheRest) {
    const BoundedLogLimits limits = smallLimits();
    BoundedLog bounded(limits);
    std::vector<std::string> seen;
    const auto onLine = [&](std::string_view line) { seen.emplace_back(line); };
    const std::string longLine(10 * limits.lineBytes, 'x');
    for (std::size_t at = 0; at < longLine.size(); at += 300) {
        bounded.append(std::string_view(longLine).substr(at, 300), onLine);
        ASSERT_LE(bounded.pendingLine().size(), limits.lineBytes);
    }
    bounded.append("\nnext\n", onLine);
    EXPECT_EQ(seen, (std::vector<std::string>{std::string(limits.lineBytes, 'x'), "next"}));
    EXPECT_EQ(bounded.droppedBytes(), longLine.size() - limits.lineBytes);
    EXPECT_EQ(bounded.text(), std::string(limits.lineBytes, 'x') + "\nnext\n");
}

TEST(BoundedLog, ClearForgetsEverything) {
    BoundedLog bounded(smallLimits());
    for (int i = 0; i < 1000; ++i) {
        bounded.append(kNoiseLine);
    }
    bounded.append("partial");
    bounded.clear();
    EXPECT_EQ(bounded.text(), "");
    EXPECT_EQ(bounded.storedBytes(), 0u);
    EXPECT_EQ(bounded.receivedBytes(), 0u);
    EXPECT_EQ(bounded.droppedBytes(), 0u);
}

TEST(BoundedLog, NoiseIsNotDiagnosticButBufferAndErrorLinesAre) {
    EXPECT_FALSE(isDiagnosticLogLine(kNoiseLine.substr(0, kNoiseLine.size() - 1)));
    EXPECT_FALSE(isDiagnosticLogLine("0.00.021.467 I print_info: max token length      = 6"));
    EXPECT_TRUE(
        isDiagnosticLogLine("0.00.021.707 I load_tensors:   CPU_Mapped model buffer size =     0.42 MiB"));
    EXPECT_TRUE(
        isDiagnosticLogLine("llama_kv_cache:        CPU KV buffer size =   488.31 MiB")); // --no-log-prefix
    EXPECT_TRUE(isDiagnosticLogLine("0.00.492.552 E ggml_aligned_malloc: insufficient memory"));
    EXPECT_TRUE(isDiagnosticLogLine("ggml_vulkan: Device memory allocation of size 1024 failed."));
    EXPECT_TRUE(isDiagnosticLogLine("error: invalid argument: --no-mmap"));
}

// Every line the parsers read survives: the allocation log and the failure classified from
// the bounded text equal those of the original, for every captured log.
class BoundedLogKeepsDiagnosis : public testing::TestWithParam<std::string> {};

TEST_P(BoundedLogKeepsDiagnosis, SameAllocationLogAndFailure) {
    const std::string name = GetParam();
    const std::string log = name.starts_with("fail-") ? testdata::readServerCapture(name) : readLog(name);
    ASSERT_FALSE(log.empty()) << name;
    const BoundedLog bounded = feedWithNoise(log, 20, smallLimits());
    const std::string kept = bounded.text();
    ASSERT_GT(bounded.droppedBytes(), 0u) << "the noise must push lines out";
    ASSERT_LE(bounded.storedBytes(), smallLimits().capBytes());

    const Result<AllocationLog> original = parseAllocationLog(log);
    const Result<AllocationLog> fromKept = parseAllocationLog(kept);
    ASSERT_TRUE(original.ok()) << original.error().message;
    ASSERT_TRUE(fromKept.ok()) << fromKept.error().message;
    EXPECT_EQ(*fromKept, *original);

    LaunchOutcome outcome;
    outcome.exitCode = 1;
    outcome.log = log;
    LaunchFailure expected = classifyLaunchFailure(outcome);
    outcome.log = kept;
    LaunchFailure actual = classifyLaunchFailure(outcome);
    expected.log.clear();
    actual.log.clear();
    EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(CapturedLogs, BoundedLogKeepsDiagnosis,
                         testing::Values("fail-oom-compute.log", "fail-oom-kv.log", "fail-badflag.log",
                                         "fail-missing.log", "fail-notgguf.log", "fail-portinuse.log",
                                         "llama1b-f16-c4096-np1.log", "llama1b-f16-c4096-np1-noprefix.log",
                                         "llama1b-f16-fa-off-ctv-q8-error.log",
                                         "gemma3-q8-c8192-np4-swafull.log", "qwen35moe-q8-c32768-np4.log",
                                         "llama1b-f16-c4096-np1-fiton.log"),
                         [](const testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name) {
                                 c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                             }
                             return name;
                         });

} // namespace
} // namespace llamafit

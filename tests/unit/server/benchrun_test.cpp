// llama-bench's argv from planned settings, and its real `-o json` output (tests/data/bench).
#include "core/server/benchrun.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace llamafit {
namespace {

std::string benchData(const std::string& name) {
    std::ifstream in(std::string(LLAMAFIT_TEST_BENCH_DATA_DIR) + "/" + name, std::ios::binary);
    EXPECT_TRUE(in.good()) << name;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The value after `flag`, or "" when the flag is absent.
std::string valueOf(const std::vector<std::string>& args, const std::string& flag) {
    const auto it = std::find(args.begin(), args.end(), flag);
    return it == args.end() || it + 1 == args.end() ? std::string() : *(it + 1);
}

TEST(BenchArgs, CarryThePlannedLaunchSettings) {
    BenchRequest request;
    request.modelPath = "/models/m.gguf";
    request.settings.gpuLayers = GpuLayers::count(20);
    request.settings.flashAttention = FlashAttention::On;
    request.settings.cacheTypeK = GgmlType::Q8_0;
    request.settings.cacheTypeV = GgmlType::Q4_0;
    request.settings.ubatchTokens = 256;
    request.settings.cpuMoeLayers = 4;
    request.settings.kvOffload = false;
    request.threads = 6;
    request.depths = {0, 4096, 32768};
    Result<std::vector<std::string>> args = buildBenchArgs(request);
    ASSERT_TRUE(args.ok()) << args.error().message;
    EXPECT_EQ(valueOf(*args, "-m"), "/models/m.gguf");
    EXPECT_EQ(valueOf(*args, "-ngl"), "20");
    EXPECT_EQ(valueOf(*args, "-fa"), "on");
    EXPECT_EQ(valueOf(*args, "-ctk"), "q8_0");
    EXPECT_EQ(valueOf(*args, "-ctv"), "q4_0");
    EXPECT_EQ(valueOf(*args, "-ub"), "256");
    EXPECT_EQ(valueOf(*args, "-b"), "2048");
    EXPECT_EQ(valueOf(*args, "-t"), "6");
    EXPECT_EQ(valueOf(*args, "-d"), "0,4096,32768");
    EXPECT_EQ(valueOf(*args, "-ncmoe"), "4");
    EXPECT_EQ(valueOf(*args, "-nkvo"), "1");
    EXPECT_EQ(valueOf(*args, "-o"), "json");
    EXPECT_NE(std::find(args->begin(), args->end(), "--progress"), args->end());
    EXPECT_EQ(benchTestCount(request), 6u);

    request.settings.gpuLayers = GpuLayers::all();
    EXPECT_EQ(valueOf(*buildBenchArgs(request), "-ngl"), "999");
    request.settings.gpuLayers = GpuLayers::automatic();
    EXPECT_EQ(valueOf(*buildBenchArgs(request), "-ngl"), "");
    request.threads.reset();
    EXPECT_EQ(valueOf(*buildBenchArgs(request), "-t"), "");
}

TEST(BenchArgs, RefusesWhatLlamaBenchCannotRun) {
    BenchRequest request;
    EXPECT_EQ(buildBenchArgs(request).error().code, "bench.bad-request");
    request.modelPath = "m.gguf";
    request.depths.clear();
    EXPECT_EQ(buildBenchArgs(request).error().code, "bench.bad-request");
    request.depths = {0};
    request.promptTokens = 0;
    request.generatedTokens = 0;
    EXPECT_EQ(buildBenchArgs(request).error().code, "bench.bad-request");
    request.generatedTokens = 128;
    request.settings.cpuMoe = true;
    const Error error = buildBenchArgs(request).error();
    EXPECT_EQ(error.code, "bench.unsupported-setting");
    EXPECT_EQ(error.settings, std::vector<Setting>{Setting::CpuMoe});
    EXPECT_EQ(error.flag, "-cmoe");
}

TEST(BenchJson, ReadsRealOutputWithDepths) {
    Result<std::vector<BenchRow>> rows = parseBenchJson(benchData("tiny-fa-on-d0-d256.json"));
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 4u);
    const BenchRow& pp = (*rows)[0];
    EXPECT_TRUE(pp.isPrompt());
    EXPECT_EQ(pp.testName(), "pp64");
    EXPECT_EQ(pp.buildNumber, 11669u);
    EXPECT_EQ(pp.backends, "CPU");
    EXPECT_EQ(pp.modelFilename, "tiny.gguf");
    EXPECT_EQ(pp.modelSizeBytes, 443648u);
    EXPECT_EQ(pp.flashAttention, 1);
    EXPECT_EQ(pp.ubatchTokens, 64u);
    EXPECT_EQ(pp.threads, 2u);
    EXPECT_EQ(pp.typeK, "f16");
    EXPECT_EQ(pp.samplesTps.size(), 2u);
    EXPECT_GT(pp.averageTps, 0);
    const BenchRow& tg = (*rows)[3];
    EXPECT_TRUE(tg.isGeneration());
    EXPECT_EQ(tg.depth, 256u);
    EXPECT_EQ(tg.testName(), "tg16 @ d256");
    // avg_ts is tokens / avg time of the samples (llama-bench: n_tokens * 1e9 / avg_ns).
    EXPECT_NEAR(tg.averageTps, 16e9 / tg.averageNs, tg.averageTps * 0.5);
}

TEST(BenchJson, ReadsFlashAttentionOffAndRefusesBrokenOutput) {
    Result<std::vector<BenchRow>> rows = parseBenchJson(benchData("tiny-fa-off.json"));
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 2u);
    EXPECT_EQ((*rows)[0].flashAttention, 0);
    EXPECT_EQ((*rows)[1].generatedTokens, 8u);
    // A run llama.cpp refused leaves "[" and no closing bracket.
    EXPECT_EQ(parseBenchJson(benchData("tiny-q8_0-refused.json")).error().code, "bench.bad-json");
    EXPECT_EQ(parseBenchJson("[{\"n_prompt\": 1}]").error().code, "bench.bad-json");
    EXPECT_EQ(parseBenchJson("{}").error().code, "bench.bad-json");
    // A field of another type is named, not thrown (nlohmann's value() throws on a mismatch).
    const Result<std::vector<BenchRow>> mistyped =
        parseBenchJson(R"([{"n_prompt": 0, "n_gen": 8, "avg_ts": 1.5, "avg_ns": 1.0, "model_filename": 5}])");
    ASSERT_FALSE(mistyped.ok());
    EXPECT_EQ(mistyped.error().code, "bench.bad-json");
    EXPECT_NE(mistyped.error().message.find("test 1"), std::string::npos) << mistyped.error().message;
}

TEST(BenchProgress, ReadsEveryRealProgressLine) {
    std::istringstream lines(benchData("tiny-fa-on-d0-d256.progress.txt"));
    std::string line;
    std::uint32_t count = 0;
    std::uint32_t lastTest = 0;
    while (std::getline(lines, line)) {
        const std::optional<BenchProgress> progress = benchProgressFromLine(line);
        ASSERT_TRUE(progress.has_value()) << line;
        EXPECT_EQ(progress->total, 4u);
        EXPECT_GE(progress->test, lastTest);
        lastTest = progress->test;
        ++count;
    }
    EXPECT_GT(count, 8u);
    EXPECT_EQ(lastTest, 4u);
    EXPECT_EQ(benchProgressFromLine("llama-bench: benchmark 3/4: starting")->stage, "starting");
    EXPECT_FALSE(benchProgressFromLine("llama-bench: benchmark 5/4: starting").has_value());
    EXPECT_FALSE(benchProgressFromLine("load_backend: loaded CPU backend").has_value());
}

} // namespace
} // namespace llamafit

namespace llamafit {
namespace {

TEST(BenchDepths, ReadsCommaSeparatedTokenCountsAndNamesABadList) {
    EXPECT_EQ(*parseBenchDepths("0"), (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(*parseBenchDepths("0,4096, 32768"), (std::vector<std::uint32_t>{0, 4096, 32768}));
    for (const char* bad : {"", "0,", ",4096", "4k", "-1", "0;4096", "99999999999"}) {
        const Result<std::vector<std::uint32_t>> depths = parseBenchDepths(bad);
        ASSERT_FALSE(depths.ok()) << bad;
        EXPECT_EQ(depths.error().code, "cli.bad-value") << bad;
        EXPECT_EQ(depths.error().flag, "--depths") << bad;
        EXPECT_NE(depths.error().message.find(std::string("'") + bad + "'"), std::string::npos) << bad;
    }
}

} // namespace
} // namespace llamafit

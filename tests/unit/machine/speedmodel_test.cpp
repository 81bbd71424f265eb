// The speed model against public measurements (docs/speed.md, one row each, with its source):
// with the default efficiencies every row's expected decode rate is within 25 % of what was
// measured. The seed's three Strix Halo runs go through the whole pipeline (the built-in
// Qwen3.5-35B-A3B Q6_K card, the estimate at each context and KV type, the MoE's routed
// experts); the other rows give the bytes llama-bench printed as the model size (a dense model
// reads all of it per token, less one embedding row: under 3 % for these models).
#include "core/machine/kvpairspeed.h"
#include "core/machine/speedmodel.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace llamafit {
namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kTolerance = 0.25;

struct PublicRow {
    const char* what;
    const char* source;
    Backend backend;
    double bandwidthGBps;
    double modelGiB; // llama-bench's "size" (dense rows)
    double measuredTps;
};

// Keep in step with docs/speed.md.
const PublicRow kDenseRows[] = {
    {"llama 13B Q6_K, RX 6800 XT, Vulkan, tg128", "https://github.com/ggml-org/llama.cpp/pull/2059",
     Backend::Vulkan, 512, 9.95, 34.13},
    {"Llama 3.1 8B Q4_K_M, RTX 3080, CUDA, tg128",
     "https://github.com/dmatora/LLM-inference-speed-benchmarks/issues/12", Backend::Cuda, 760, 4.58, 111.95},
    {"Llama 3.1 8B Q4_K_M, RTX 2080, CUDA, llama-server", "https://github.com/AlexsJones/llmfit/pull/773",
     Backend::Cuda, 448, 4.58, 71.9},
    {"Llama 3.1 8B Q4_K_M, RTX 4060 Laptop, CUDA (ollama)", "https://github.com/AlexsJones/llmfit/pull/958",
     Backend::Cuda, 256, 4.58, 47.2},
    {"LLaMA 7B Q4_0, M2 Ultra, Metal, tg128", "https://github.com/ggml-org/llama.cpp/pull/2917",
     Backend::Metal, 800, 3.56, 88.54},
    {"LLaMA 7B Q8_0, M2 Ultra, Metal, tg128", "https://github.com/ggml-org/llama.cpp/pull/2917",
     Backend::Metal, 800, 6.67, 62.05},
    {"Mistral 7B Q4_0, RX 6700 XT, ROCm, tg128", "https://github.com/ggml-org/llama.cpp/pull/5835",
     Backend::Rocm, 384, 3.83, 58.97},
};

double relativeError(double predicted, double measured) {
    return (predicted - measured) / measured;
}

TEST(SpeedModel, PublicDenseRowsWithinTwentyFivePercent) {
    for (const PublicRow& row : kDenseRows) {
        SpeedInputs inputs;
        inputs.bandwidthBytesPerSecond = static_cast<std::uint64_t>(row.bandwidthGBps * 1e9);
        inputs.weightBytesPerToken = static_cast<std::uint64_t>(row.modelGiB * kBytesPerGiB);
        inputs.weightBytesTotal = inputs.weightBytesPerToken;
        const SpeedPrediction prediction = predictSpeed(inputs, defaultSpeedEfficiency(row.backend, false));
        const double error = relativeError(prediction.decodeTpsExpected, row.measuredTps);
        std::printf("| %s | %.2f | %.1f | %.1f | %+.1f %% |\n", row.what, row.measuredTps,
                    prediction.decodeTpsBound, prediction.decodeTpsExpected, 100 * error);
        EXPECT_LE(std::abs(error), kTolerance) << row.what << " (" << row.source << ")";
        EXPECT_GT(prediction.decodeTpsBound, row.measuredTps) << row.what << ": the bound is an upper bound";
    }
}

struct SeedRow {
    std::uint32_t contextTokens;
    GgmlType kvType;
    double measuredTps;
};

// Seed 000 (shared/seeds/000_*.txt): Qwen3.5-35B-A3B Q6_K, llama-server on Vulkan, Radeon 8060S
// (GMKtec EVO-X2, 256 GB/s), 4 auto slots, chat-length prompts (taken as 512 tokens filled).
TEST(SpeedModel, SeedStrixHaloRowsWithinTwentyFivePercent) {
    const SeedRow rows[] = {
        {4096, GgmlType::F16, 53.7}, {32768, GgmlType::F16, 49.9}, {65536, GgmlType::Q8_0, 53.6}};
    const ModelInfo model = test::seedModel();
    const Machine machine = test::seedMachine();
    ASSERT_TRUE(machine.bandwidthBytesPerSecond.has_value());
    for (const SeedRow& row : rows) {
        ServerSettings settings;
        settings.contextTokens = row.contextTokens;
        settings.cacheTypeK = row.kvType;
        settings.cacheTypeV = row.kvType;
        const MemoryEstimate estimate = test::estimateOn(model, settings, machine);
        const SpeedInputs inputs =
            speedInputs(model, estimate, *machine.bandwidthBytesPerSecond, machine.fp16Tflops, 512, 512u);
        const SpeedPrediction prediction =
            predictSpeed(inputs, defaultSpeedEfficiency(Backend::Vulkan, true));
        const double error = relativeError(prediction.decodeTpsExpected, row.measuredTps);
        std::printf(
            "| Qwen3.5-35B-A3B Q6_K, Radeon 8060S, Vulkan, -c %u %s KV | %.1f | %.1f | %.1f | %+.1f %% |\n",
            row.contextTokens, std::string(ggmlTypeName(row.kvType)).c_str(), row.measuredTps,
            prediction.decodeTpsBound, prediction.decodeTpsExpected, 100 * error);
        EXPECT_LE(std::abs(error), kTolerance) << row.contextTokens;
        EXPECT_GT(prediction.decodeTpsBound, row.measuredTps);
        ASSERT_TRUE(prediction.promptTpsExpected.has_value());
    }
}

TEST(SpeedModel, SlotsShareTheBandwidth) {
    SpeedInputs inputs;
    inputs.bandwidthBytesPerSecond = 256'000'000'000ULL;
    inputs.weightBytesPerToken = 2'000'000'000ULL;
    inputs.kvBytesPerToken = 500'000'000ULL;
    const SpeedEfficiency efficiency = defaultSpeedEfficiency(Backend::Vulkan, false);
    const SpeedPrediction one = predictSpeed(inputs, efficiency);
    inputs.decodingSlots = 4;
    const SpeedPrediction four = predictSpeed(inputs, efficiency);
    EXPECT_EQ(one.bytesPerStep, 2'500'000'000ULL);
    EXPECT_EQ(four.bytesPerStep, 4'000'000'000ULL);
    EXPECT_DOUBLE_EQ(four.decodeTpsBound, 64.0);
    EXPECT_LT(four.decodeTpsExpected, one.decodeTpsExpected);
    EXPECT_GT(four.decodeTpsAllSlots, one.decodeTpsAllSlots); // weights read once for all four
}

TEST(SpeedModel, PromptIsComputeBoundAtLargeBatchesAndReadBoundAtSmallOnes) {
    SpeedInputs inputs;
    inputs.bandwidthBytesPerSecond = 256'000'000'000ULL;
    inputs.fp16Tflops = 59.4;
    inputs.weightBytesPerToken = 4'000'000'000ULL;
    inputs.weightBytesTotal = 4'000'000'000ULL;
    inputs.activeParameters = 8'000'000'000ULL;
    const SpeedEfficiency efficiency = defaultSpeedEfficiency(Backend::Vulkan, false);
    inputs.ubatchTokens = 512;
    const double large = *predictSpeed(inputs, efficiency).promptTpsExpected;
    EXPECT_NEAR(large, 59.4e12 * efficiency.prompt / 16e9, 1e-6);
    inputs.ubatchTokens = 1; // one token per batch: as slow as decoding
    const SpeedPrediction single = predictSpeed(inputs, efficiency);
    EXPECT_NEAR(*single.promptTpsExpected, single.decodeTpsExpected, 1e-9);
    inputs.fp16Tflops.reset();
    EXPECT_FALSE(predictSpeed(inputs, efficiency).promptTpsExpected.has_value());
}

TEST(SpeedEfficiency, LearnedFromBenchmarksOfTheSameKindOnly) {
    const std::vector<EfficiencySample> samples = {
        {Backend::Cpu, false, false, 30, 100},    {Backend::Cpu, false, false, 40, 100},
        {Backend::Cpu, false, false, 50, 100},    {Backend::Cpu, true, false, 90, 100},
        {Backend::Vulkan, false, false, 10, 100}, {Backend::Cpu, false, true, 20, 0}};
    const SpeedEfficiency learned = learnSpeedEfficiency(Backend::Cpu, false, samples);
    EXPECT_EQ(learned.source, SpeedSource::Benchmarks);
    EXPECT_DOUBLE_EQ(learned.decode, 0.4);
    EXPECT_EQ(learned.sampleCount, 3u);
    EXPECT_DOUBLE_EQ(learned.prompt, defaultSpeedEfficiency(Backend::Cpu, false).prompt);
    const SpeedEfficiency none = learnSpeedEfficiency(Backend::Metal, false, samples);
    EXPECT_EQ(none, defaultSpeedEfficiency(Backend::Metal, false));
    EXPECT_EQ(speedSourceName(none.source), "public-defaults");
}

TEST(SpeedEfficiency, LiveRunsVoteLikeBenchmarkRowsAndTheSourceSaysWhichWereUsed) {
    const EfficiencySample bench{Backend::Cuda, false, false, 60, 100};
    EfficiencySample live{Backend::Cuda, false, false, 80, 100};
    live.live = true;
    const SpeedEfficiency fromLive = learnSpeedEfficiency(Backend::Cuda, false, {live, live});
    EXPECT_EQ(fromLive.source, SpeedSource::LiveRuns);
    EXPECT_EQ(speedSourceName(fromLive.source), "live-runs");
    EXPECT_DOUBLE_EQ(fromLive.decode, 0.8);
    EXPECT_NE(fromLive.description.find("2 live run(s)"), std::string::npos) << fromLive.description;

    const SpeedEfficiency fromBoth = learnSpeedEfficiency(Backend::Cuda, false, {bench, live, live});
    EXPECT_EQ(speedSourceName(fromBoth.source), "benchmarks+live-runs");
    EXPECT_DOUBLE_EQ(fromBoth.decode, 0.8); // the median of 0.6, 0.8, 0.8
    EXPECT_EQ(fromBoth.sampleCount, 3u);
    EXPECT_NE(fromBoth.description.find("1 llama-bench row(s) and 2 live run(s)"), std::string::npos)
        << fromBoth.description;
}

} // namespace
} // namespace llamafit

namespace llamafit {
namespace {

// Issue 15 item 4 (seed 003's question, is q4_0 worth it?): the speed of each K/V choice for
// Llama-3-8B Q4_K_M at 32K on the RTX 4060: bounds 30 / 39 / 46 t/s, expected in the same order.
TEST(KvPairSpeed, QuantizedCachesReadFewerBytesAndDecodeFaster) {
    const ModelInfo model = test::cardModel("llama-3-8b-q4_k_m");
    ServerSettings settings;
    settings.parallelSlots = 1;
    const SpeedEfficiency efficiency = defaultSpeedEfficiency(Backend::Cuda, false);
    const std::pair<GgmlType, double> cases[] = {
        {GgmlType::F16, 30}, {GgmlType::Q8_0, 39}, {GgmlType::Q4_0, 46}};
    double previous = 0;
    for (const auto& [type, bound] : cases) {
        const std::optional<SpeedPrediction> speed = speedWithKvPair(
            model, settings, type, type, 32768, {}, 272'000'000'000ULL, std::nullopt, efficiency);
        ASSERT_TRUE(speed.has_value()) << ggmlTypeName(type);
        EXPECT_NEAR(speed->decodeTpsBound, bound, 1.0) << ggmlTypeName(type);
        EXPECT_DOUBLE_EQ(speed->decodeTpsExpected, speed->decodeTpsBound * efficiency.decode);
        EXPECT_GT(speed->decodeTpsExpected, previous);
        previous = speed->decodeTpsExpected;
    }
    // A pair llama-server refuses (quantized V without flash attention) has no speed.
    settings.flashAttention = FlashAttention::Off;
    EXPECT_FALSE(speedWithKvPair(model, settings, GgmlType::F16, GgmlType::Q4_0, 32768, {},
                                 272'000'000'000ULL, std::nullopt, efficiency)
                     .has_value());
    EXPECT_FALSE(speedWithKvPair(model, settings, GgmlType::F16, GgmlType::F16, 0, {}, 272'000'000'000ULL,
                                 std::nullopt, efficiency)
                     .has_value());
}

} // namespace
} // namespace llamafit

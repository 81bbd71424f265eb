// The fit replica's own rules (core/sizing/fitreplica.h, core/flags/fitflags.h); the cases
// against the real llama-fit-params are in tests/unit/recorded/fitrecorded_test.cpp.

#include "core/common/units.h"
#include "core/flags/fitflags.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/fitreplica.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ModelInfo shapeModel(const char* name, std::optional<GgmlType> weightType = std::nullopt) {
    Result<ModelSpec> spec = test::loadShape(name);
    EXPECT_TRUE(spec);
    test::ModelFileOptions options;
    options.weightType = weightType;
    Result<GgufFile> file = test::ggufFileForSpec(*spec, options);
    EXPECT_TRUE(file);
    Result<ModelInfo> model = interpretModel(*file);
    EXPECT_TRUE(model);
    return *model;
}

FitParams fitParamsOf(std::vector<std::string> args) {
    Result<ParsedServerArgs> parsed = parseServerArgs(args);
    EXPECT_TRUE(parsed);
    Result<FitParams> params = readFitParams(*parsed);
    EXPECT_TRUE(params) << params.error().message;
    return *params;
}

TEST(FitFlags, DefaultsTargetsAndTheLastOfMinusC0AndFitc) {
    EXPECT_EQ(fitParamsOf({}), FitParams{});
    const FitParams targets = fitParamsOf({"-fitt", "2048,512/256", "-fitc", "8192", "-fit", "off"});
    EXPECT_EQ(targets.targetsMiB, (std::vector<std::uint64_t>{2048, 512, 256}));
    EXPECT_EQ(targets.minContextTokens, 8192u);
    EXPECT_FALSE(targets.enabled);
    EXPECT_TRUE(fitParamsOf({"-fitc", "8192", "-c", "0"}).fullContextRequested);
    EXPECT_FALSE(fitParamsOf({"-c", "0", "--fit-ctx", "8192"}).fullContextRequested);
    EXPECT_FALSE(fitParamsOf({"-c", "4096"}).fullContextRequested);
}

TEST(FitFlags, BadValuesNameTheFlag) {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"-fit", "maybe"}, {"-fitt", "1024,x"}, {"--fit-target", ""}, {"-fitc", "-5"}}) {
        Result<ParsedServerArgs> parsed = parseServerArgs(args);
        ASSERT_TRUE(parsed);
        Result<FitParams> params = readFitParams(*parsed);
        ASSERT_FALSE(params) << args[0] << " " << args[1];
        EXPECT_EQ(params.error().code, "args.bad-value");
        EXPECT_EQ(params.error().flag, args[0]);
    }
}

TEST(FitArguments, PrintedLikeLlamaFitParams) {
    FitOutcome outcome;
    outcome.contextTokens = 116224;
    EXPECT_EQ(fitArgumentsText(outcome), "-c 116224 -ngl -1");
    outcome.gpuLayers = 13;
    outcome.tensorSplit = {10, 3, 0, 0};
    outcome.tensorOverrides = {{"blk\\.9\\.ffn_(gate|gate_up|down).*", "Vulkan1"},
                               {"blk\\.10\\.ffn_(up|down|gate_up|gate)_(ch|)exps", "CPU"}};
    EXPECT_EQ(fitArgumentsText(outcome), "-c 116224 -ngl 13 -ts 10,3 -ot "
                                         "\"blk\\.9\\.ffn_(gate|gate_up|down).*=Vulkan1,"
                                         "blk\\.10\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU\"");
    outcome.tensorSplit = {13, 0};
    EXPECT_EQ(fitArgumentsText(outcome).find("-ts"), std::string::npos) << "one share left: no -ts";
}

TEST(FitReplica, OffLeavesEverythingToTheUser) {
    FitRequest request;
    request.params.enabled = false;
    request.hostTotalBytes = 1024 * kMiB;
    Result<FitOutcome> outcome = replicateLlamaFit(shapeModel("qwen2"), request);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->status, FitStatus::Disabled);
    EXPECT_EQ(outcome->measurements, 0u);
    EXPECT_EQ(outcome->settings, request.settings);
}

TEST(FitReplica, ContextShrinksOnOneGpuAndTheUsersLayersEndTheFit) {
    GpuDevice gpu;
    gpu.name = "CUDA0";
    gpu.backend = Backend::Cuda;
    gpu.memoryBytes = 4096 * kMiB;
    FitRequest request;
    request.gpus = {gpu};
    const ModelInfo model = shapeModel("llama");
    Result<FitOutcome> shrunk = replicateLlamaFit(model, request);
    ASSERT_TRUE(shrunk);
    EXPECT_EQ(shrunk->status, FitStatus::Fitted);
    EXPECT_LT(shrunk->contextTokens, model.trainingContext);
    EXPECT_EQ(shrunk->contextTokens % 256, 0u);
    EXPECT_EQ(shrunk->gpuLayers, -1);
    EXPECT_EQ(shrunk->settings.contextTokens, shrunk->contextTokens);

    // Too small even at the minimum context: the layers would have to move, but -ngl is the user's.
    request.gpus[0].memoryBytes = 2048 * kMiB;
    request.settings.gpuLayers = GpuLayers::count(99);
    Result<FitOutcome> refused = replicateLlamaFit(model, request);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, FitStatus::Failed);
    EXPECT_EQ(refused->failure, "n_gpu_layers already set by user to 99, abort");
    EXPECT_EQ(refused->contextTokens, 4096u)
        << "llama-server keeps the minimum context fit set before it gave up";

    // Without -ngl the fit gives the GPU as many layers as leave 1024 MiB free.
    request.settings.gpuLayers.reset();
    Result<FitOutcome> layered = replicateLlamaFit(model, request);
    ASSERT_TRUE(layered);
    EXPECT_EQ(layered->status, FitStatus::Fitted);
    EXPECT_GT(layered->gpuLayers, 0);
    EXPECT_LT(layered->gpuLayers, static_cast<std::int32_t>(model.trunkLayerCount() + 1));
    Result<MemoryEstimate> estimate = estimateMemory(model, layered->settings, request.gpus);
    ASSERT_TRUE(estimate);
    EXPECT_LE(fitProjection(*estimate)[0], (2048 - 1024) * kMiB);
}

TEST(FitReplica, MoeExpertsOverflowToTheCpuWithPatterns) {
    GpuDevice gpu;
    gpu.name = "CUDA0";
    gpu.backend = Backend::Cuda;
    gpu.memoryBytes = 6144 * kMiB;
    FitRequest request;
    request.gpus = {gpu};
    request.settings.contextTokens = 8192;
    Result<FitOutcome> outcome = replicateLlamaFit(shapeModel("qwen3moe"), request);
    ASSERT_TRUE(outcome);
    ASSERT_EQ(outcome->status, FitStatus::Fitted);
    EXPECT_EQ(outcome->gpuLayers, 13) << "every layer is on the GPU, some without their experts";
    ASSERT_FALSE(outcome->tensorOverrides.empty());
    for (const TensorOverride& item : outcome->tensorOverrides) {
        EXPECT_EQ(item.bufferType, "CPU");
        EXPECT_EQ(item.pattern.rfind("blk\\.", 0), 0u) << item.pattern;
    }
}

} // namespace
} // namespace llamafit

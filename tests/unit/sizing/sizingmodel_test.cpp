// prepareModel() / SizingModel: the prepared path, and the process's memo of prepared models,
// give exactly the estimate worked out from scratch (the groups
// and the remembered placements are optimisations, never a different answer), and the name rules behind the
// groups agree with the per-name matchers they replace.
#include "core/common/units.h"
#include "core/sizing/estimator.h"
#include "core/sizing/preparedmodels.h"
#include "core/sizing/solvers.h"
#include "core/sizing/weightclass.h"
#include "tests/support/sanitizers.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>

namespace llamafit {
namespace {

GpuDevice gpu(const char* name, std::uint64_t gib, Backend backend, bool integrated = false) {
    return {name, gib * kGiB, backend, integrated, std::nullopt};
}

// Settings that move weights by every rule placement knows: -ngl, -ts, -cmoe, -ncmoe, -ot,
// -lm none (pinned host buffers), --no-repack, -nkvo, and the plain CPU-only run.
std::vector<ServerSettings> placementVariety() {
    std::vector<ServerSettings> out;
    ServerSettings base;
    base.contextTokens = 8192;
    out.push_back(base);
    for (int ngl : {0, 1, 3, 10, 99}) {
        ServerSettings s = base;
        s.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(ngl));
        out.push_back(s);
    }
    ServerSettings cmoe = base;
    cmoe.cpuMoe = true;
    out.push_back(cmoe);
    for (std::uint32_t n : {1u, 2u, 5u, 100u}) {
        ServerSettings s = base;
        s.cpuMoeLayers = n;
        out.push_back(s);
    }
    ServerSettings ot = base;
    ot.tensorOverrides = {{"blk\\.1\\.", "CPU"}, {"ffn_(up|down)", "CUDA0"}};
    out.push_back(ot);
    ServerSettings copied = base;
    copied.loadMode = LoadMode::None;
    copied.repack = false;
    copied.tensorSplit = {3.0, 1.0};
    out.push_back(copied);
    ServerSettings repack = base;
    repack.loadMode = LoadMode::None;
    repack.kvOffload = false;
    repack.cacheTypeK = GgmlType::Q8_0;
    repack.cacheTypeV = GgmlType::Q4_0;
    out.push_back(repack);
    return out;
}

std::vector<std::vector<GpuDevice>> gpuVariety() {
    return {{},
            {gpu("CUDA0", 24, Backend::Cuda)},
            {gpu("CUDA0", 16, Backend::Cuda), gpu("CUDA1", 8, Backend::Cuda)},
            {gpu("Vulkan0", 8, Backend::Vulkan, true)},
            {gpu("Metal", 32, Backend::Metal)}};
}

std::vector<ModelInfo> modelVariety() {
    return {test::llama1B(GgmlType::Q4_0), test::llama3_8B(),     test::qwen35_35B_A3B(), test::gemma3_1B(),
            test::deepseekMlaLite(),       test::qwen3MoeLike({})};
}

// Under the sanitizers every third combination, in turn (14 settings per model and GPU set, so each
// setting still meets a third of the models and GPU sets): the whole product took five minutes
// there, for memory checks that a third of it exercises on the same paths. The Release suite
// checks every combination.
constexpr std::size_t kSanitizerStride = LLAMAFIT_UNDER_ASAN ? 3 : 1;

TEST(SizingModel, PreparedEstimatesEqualPlainOnes) {
    std::size_t combination = 0;
    for (const ModelInfo& model : modelVariety()) {
        // The process's prepared model of it, so that the plain estimate below finds the plans
        // this one compiled rather than compiling them a third time.
        const std::shared_ptr<const SizingModel> kept = preparedModelFor(model, {});
        const SizingModel& prepared = *kept;
        EXPECT_EQ(prepared.model(), model);
        for (const auto& gpus : gpuVariety()) {
            for (const ServerSettings& settings : placementVariety()) {
                if (combination++ % kSanitizerStride != 0) {
                    continue;
                }
                const auto plain = estimateMemoryUnprepared(model, settings, gpus);
                const auto fast = estimateMemory(prepared, settings, gpus);
                const auto memoized = estimateMemory(model, settings, gpus); // preparedmodels.h
                ASSERT_EQ(plain.ok(), fast.ok()) << model.architecture;
                ASSERT_EQ(plain.ok(), memoized.ok()) << model.architecture;
                if (plain.ok()) {
                    EXPECT_EQ(plain.value(), fast.value())
                        << model.architecture << " on " << gpus.size() << " GPUs";
                    EXPECT_EQ(plain.value(), memoized.value())
                        << model.architecture << " on " << gpus.size() << " GPUs";
                } else {
                    EXPECT_EQ(plain.error(), fast.error());
                    EXPECT_EQ(plain.error(), memoized.error());
                }
            }
        }
    }
}

// The prepared model remembers each placement it made (placementcache.h) and answers later
// estimates of the same settings at other contexts from it. Asked in a seeded random order, with
// settings, devices and contexts interleaved and more settings than the cache keeps, every answer
// is still the plain estimate's.
TEST(SizingModel, RememberedPlacementsGiveThePlainEstimateInAnyOrder) {
    for (const ModelInfo& model : {test::qwen3MoeLike({}), test::gemma3_1B()}) {
        const SizingModel prepared = prepareModel(model);
        const std::vector<ServerSettings> settingsList = placementVariety();
        const std::vector<std::vector<GpuDevice>> gpusList = gpuVariety();
        std::mt19937 random(7);
        for (int i = 0; i < 60; ++i) {
            ServerSettings settings = settingsList[random() % settingsList.size()];
            const std::vector<GpuDevice>& gpus = gpusList[random() % gpusList.size()];
            settings.contextTokens = 1024 + 256 * static_cast<std::uint32_t>(random() % 256);
            SCOPED_TRACE(model.architecture + " case " + std::to_string(i));
            const auto plain = estimateMemoryUnprepared(model, settings, gpus);
            const auto fast = estimateMemory(prepared, settings, gpus);
            ASSERT_EQ(plain.ok(), fast.ok());
            if (plain.ok()) {
                EXPECT_EQ(plain.value(), fast.value());
            } else {
                EXPECT_EQ(plain.error(), fast.error());
            }
        }
    }
}

// estimateMemory(ModelInfo) keeps one prepared model per model (preparedmodels.h): an equal model
// finds it, and a model that differs anywhere, however deep in its tensor list, gets its own.
TEST(PreparedModels, FindTheModelOnlyWhenEveryFieldIsEqual) {
    const ModelInfo model = test::llama3_8B();
    const std::shared_ptr<const SizingModel> first = preparedModelFor(model, {});
    EXPECT_EQ(preparedModelFor(ModelInfo(model), {}), first);
    EXPECT_EQ(first->model(), model);

    ModelInfo resized = model;
    resized.tensors.back().bytes += 32; // same name, count, file size and architecture
    const std::shared_ptr<const SizingModel> other = preparedModelFor(resized, {});
    EXPECT_NE(other, first);
    EXPECT_EQ(other->model(), resized);

    CompanionModels withDraft;
    withDraft.draftModel = test::llama1B(GgmlType::Q4_0);
    EXPECT_NE(preparedModelFor(model, withDraft), first);
    EXPECT_EQ(preparedModelFor(model, withDraft)->companions(), withDraft);

    ServerSettings settings;
    settings.contextTokens = 8192;
    settings.gpuLayers = GpuLayers::count(99);
    const std::vector<GpuDevice> gpus = {gpu("CUDA0", 24, Backend::Cuda)};
    const auto asked = estimateMemory(resized, settings, gpus);
    const auto unprepared = estimateMemoryUnprepared(resized, settings, gpus);
    ASSERT_TRUE(asked.ok() && unprepared.ok());
    EXPECT_EQ(asked.value(), unprepared.value());
    EXPECT_NE(asked.value(), estimateMemory(model, settings, gpus).value());
}

TEST(SizingModel, GroupsKeepEveryTensorByte) {
    const ModelInfo model = test::qwen35_35B_A3B();
    const WeightGroups groups = groupWeights(model);
    const std::uint64_t tensorBytes =
        std::accumulate(model.tensors.begin(), model.tensors.end(), std::uint64_t{0},
                        [](std::uint64_t sum, const TensorSummary& tensor) { return sum + tensor.bytes; });
    const std::uint64_t groupBytes =
        std::accumulate(groups.groups.begin(), groups.groups.end(), std::uint64_t{0},
                        [](std::uint64_t sum, const WeightGroup& group) { return sum + group.bytes; });
    EXPECT_EQ(groupBytes, tensorBytes);
    EXPECT_LT(groups.groups.size(), model.tensors.size() / 4); // the point of grouping
    ASSERT_TRUE(groups.tokenEmbedding.has_value());
    EXPECT_EQ(model.tensors[*groups.tokenEmbedding].name, "token_embd.weight");
}

TEST(SizingModel, SolversGiveTheSameAnswersPrepared) {
    const ModelInfo model = test::qwen35_35B_A3B();
    const SizingModel prepared = prepareModel(model);
    const std::vector<GpuDevice> gpus = {gpu("CUDA0", 16, Backend::Cuda)};
    const MemoryBudget budget{48 * kGiB, {16 * kGiB}};
    ServerSettings settings;
    settings.contextTokens = 65536;
    settings.cpuMoeLayers = 20;
    const std::vector<std::pair<GgmlType, GgmlType>> pairs = {{GgmlType::F16, GgmlType::F16},
                                                              {GgmlType::Q8_0, GgmlType::Q8_0}};
    EXPECT_EQ(largestContextPerKvPair(model, settings, gpus, budget, pairs),
              largestContextPerKvPair(prepared, settings, gpus, budget, pairs));
    EXPECT_EQ(bestKvPairForContext(model, settings, gpus, budget),
              bestKvPairForContext(prepared, settings, gpus, budget));
    EXPECT_EQ(mostGpuLayers(model, settings, gpus, budget), mostGpuLayers(prepared, settings, gpus, budget));
}

TEST(WeightClass, FirstExpertsBlockIsTheSmallestMatchingBlock) {
    for (const std::string name :
         {"blk.0.ffn_up_exps.weight", "blk.7.ffn_gate_up_chexps.weight", "blk.12.ffn_down_exps.weight",
          "blk.01.ffn_up_exps.weight", "xblk.3.ffn_gate_exps.weight", "blk.9.ffn_up_exps.blk.2.ffn_down_exps",
          "blk.3.ffn_up_shexp.weight", "blk.3.ffn_up.weight", "blk..ffn_up_exps", "ffn_up_exps",
          "blk.4.attn_q.weight"}) {
        std::optional<std::uint32_t> expected;
        for (std::uint32_t block = 0; block < 64 && !expected; ++block) {
            if (matchesExpertsPattern(name, block)) {
                expected = block;
            }
        }
        EXPECT_EQ(firstExpertsBlock(name), expected) << name;
    }
    // Digits beyond 32 bits name no block -ncmoe could reach.
    EXPECT_EQ(firstExpertsBlock("blk.4294967295.ffn_up_exps"), 4294967295u);
    EXPECT_EQ(firstExpertsBlock("blk.4294967296.ffn_up_exps"), std::nullopt);
}

TEST(WeightClass, ClassifiesWhatPlacementReads) {
    TensorSummary tensor;
    tensor.name = "blk.5.ffn_down_exps.weight";
    tensor.role = TensorRole::Layer;
    tensor.layer = 5;
    tensor.type = GgmlType::Q4_0;
    tensor.rowValues = 512;
    tensor.bytes = ggmlRowBytes(GgmlType::Q4_0, 512) * 2048;
    const WeightClass weight = classifyWeight(tensor);
    EXPECT_EQ(weight.role, TensorRole::Layer);
    EXPECT_EQ(weight.layer, 5);
    EXPECT_TRUE(weight.repacks);
    EXPECT_TRUE(weight.experts);
    EXPECT_EQ(weight.expertsBlock, 5u);
}

} // namespace
} // namespace llamafit

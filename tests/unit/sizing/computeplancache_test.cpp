// The plan cache (core/sizing/computeplancache.h): an estimate read off a compiled plan equals the
// engine's own at those cells, for every context a seeded random walk asks in any order, across
// architectures, devices and settings whose scheduling changes with the cache (lavapipe's 128 MiB
// storage range); the affine bytes' ranges (allocator/cellsteps.h) keep exactly the steps where a
// comparison keeps its answer; and a plan spans the contexts a slider and the sweep chart visit.
#include "core/common/units.h"
#include "core/sizing/allocator/cellsteps.h"
#include "core/sizing/computeengine.h"
#include "core/sizing/computeplancache.h"
#include "core/sizing/estimator.h"
#include "core/sizing/kvcachesize.h"
#include "tests/unit/sizing/testmodels.h"
#include "tests/unit/sizing/vulkanruns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace llamafit {
namespace {

using allocator::AffineBytes;
using allocator::StepRange;

TEST(StepRange, AComparisonHoldsUpToTheStepWhereItsAnswerTurns) {
    StepRange range;
    // 100 + 10 s < 150 for s <= 4.
    EXPECT_TRUE(range.less({100, 10}, {150, 0}));
    EXPECT_EQ(range.hi(), 4);
    EXPECT_EQ(range.lo(), -StepRange::kBound);
    // 120 + 5 s and 100 + 10 s meet at s = 4: apart before it.
    EXPECT_FALSE(range.equal({100, 10}, {120, 5}));
    EXPECT_EQ(range.hi(), 3);
    // 300 - 20 s > 100 holds while s < 10; it also bounds the steps below the anchor not at all.
    EXPECT_TRUE(range.less({100, 0}, {300, -20}));
    EXPECT_EQ(range.hi(), 3);
    // 50 - 10 s > 0 for s < 5, and 0 - 5 s < 20 for s > -4.
    EXPECT_TRUE(range.lessEqual({0, -5}, {20, 0}));
    EXPECT_EQ(range.lo(), -3);
    for (std::int64_t s = range.lo(); s <= range.hi(); ++s) {
        EXPECT_LT(100 + 10 * s, 150) << s;
        EXPECT_NE(100 + 10 * s, 120 + 5 * s) << s;
        EXPECT_LE(-5 * s, 20) << s;
    }
}

TEST(StepRange, EqualAtTheAnchorAloneKeepsTheAnchorAlone) {
    StepRange range;
    EXPECT_TRUE(range.equal({64, 8}, {64, 16}));
    EXPECT_EQ(range.lo(), 0);
    EXPECT_EQ(range.hi(), 0);
    StepRange same;
    EXPECT_TRUE(same.equal({64, 8}, {64, 8}));
    EXPECT_EQ(same.hi(), StepRange::kBound);
}

TEST(StepRange, RoundingUpIsAffineOnlyWhenTheSlopeIsAMultipleOfTheAlignment) {
    StepRange range;
    EXPECT_EQ(range.alignedUp({100, 512}, 32), (AffineBytes{128, 512}));
    EXPECT_EQ(range.hi(), StepRange::kBound);
    EXPECT_EQ(range.alignedUp({100, 144}, 256), (AffineBytes{256, 144}));
    EXPECT_EQ(range.hi(), 0);
    EXPECT_EQ(range.lo(), 0);
}

// The model is made when the case runs: gtest names the cases when the binary starts (listing its
// tests included, which the build does under the sanitizers), and writing six GGUF files there
// made that listing outrun its discovery timeout.
// ggml-alloc's free block at a chunk's end is SIZE_MAX/2 bytes long: comparing a growing size with
// it must keep the whole range, with no sum past 64 bits (the sanitizer build checks the latter).
TEST(StepRange, ComparesWithTheEndlessFreeBlock) {
    constexpr std::int64_t kEndless = std::numeric_limits<std::int64_t>::max();
    StepRange range;
    EXPECT_TRUE(range.less({0, 512}, {kEndless, 0}));
    EXPECT_TRUE(range.lessEqual({4096, 256}, {kEndless, 0}));
    EXPECT_EQ(range.lo(), -StepRange::kBound);
    EXPECT_EQ(range.hi(), StepRange::kBound);
}

// The crossing step from truncating division, on both sides of the anchor.
TEST(StepRange, FindsTheCrossingOnEitherSideOfTheAnchor) {
    StepRange shrinking;
    EXPECT_TRUE(shrinking.less({-700, 256}, {0, 0})); // 700 - 256 s > 0 up to s = 2
    EXPECT_EQ(shrinking.hi(), 2);
    StepRange growing;
    EXPECT_FALSE(growing.less({0, 0}, {-700, 256})); // -700 + 256 s < 0 up to s = 2
    EXPECT_EQ(growing.hi(), 2);
    StepRange backwards;
    EXPECT_TRUE(backwards.less({0, 0}, {700, 256})); // 700 + 256 s > 0 down to s = -2
    EXPECT_EQ(backwards.lo(), -2);
    EXPECT_EQ(backwards.hi(), StepRange::kBound);
}

struct Case {
    std::string name;
    std::function<ModelInfo()> model;
    ServerSettings settings;
    std::vector<GpuDevice> gpus;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    ServerSettings base;
    base.parallelSlots = 1;
    out.push_back({"llama-8b-cpu", [] { return test::llama3_8B(); }, base, {}});
    ServerSettings quantized = base;
    quantized.cacheTypeK = GgmlType::Q8_0;
    quantized.cacheTypeV = GgmlType::Q8_0;
    quantized.parallelSlots = 4;
    out.push_back({"qwen35moe-cpu-q8", [] { return test::qwen35_35B_A3B(); }, quantized, {}});
    ServerSettings offloaded = base;
    offloaded.gpuLayers = GpuLayers::count(99);
    // Attention's intermediate results outgrow lavapipe's 128 MiB storage range as the context
    // grows, and the scheduler moves those ops to the CPU: the plan's range must stop there.
    out.push_back({"llama-lavapipe-fa-off",
                   [] { return test::shapeWithBlocks("llama", 2); },
                   [&] {
                       ServerSettings s = offloaded;
                       s.flashAttention = FlashAttention::Off;
                       s.ubatchTokens = 1024;
                       return s;
                   }(),
                   {test::lavapipe()}});
    out.push_back({"gemma3-swa-lavapipe",
                   [] { return test::shapeWithBlocks("gemma3", 6); },
                   offloaded,
                   {test::lavapipe()}});
    ServerSettings hostCache = offloaded;
    hostCache.kvOffload = false;
    hostCache.gpuLayers = GpuLayers::count(2);
    out.push_back({"qwen3-partial-nkvo",
                   [] { return test::shapeWithBlocks("qwen3", 4); },
                   hostCache,
                   {test::lavapipe()}});
    out.push_back({"qwen3next-lavapipe",
                   [] { return test::shapeWithBlocks("qwen3next", 4); },
                   offloaded,
                   {test::lavapipe()}});
    return out;
}

class PlanCacheCases : public testing::TestWithParam<std::size_t> {};

// Contexts in a seeded random order, from a few hundred tokens to a quarter million, each answered
// by the prepared model (through its plans) and by the plain estimate (the engine at those cells).
TEST_P(PlanCacheCases, EveryContextGetsTheEnginesOwnAnswer) {
    const Case c = cases()[GetParam()];
    SCOPED_TRACE(c.name);
    const ModelInfo model = c.model();
    const SizingModel prepared = prepareModel(model);
    std::mt19937 random(static_cast<unsigned>(GetParam()) + 30);
    std::uniform_int_distribution<std::uint32_t> tokens(300, 262144);
    int engineSized = 0;
    for (int i = 0; i < 24; ++i) {
        ServerSettings settings = c.settings;
        settings.contextTokens = i % 6 == 5 ? 4096 * static_cast<std::uint32_t>(i) : tokens(random);
        SCOPED_TRACE("-c " + std::to_string(*settings.contextTokens));
        const Result<MemoryEstimate> fromPlan = estimateMemory(prepared, settings, c.gpus);
        const Result<MemoryEstimate> fromEngine = estimateMemory(model, settings, c.gpus);
        ASSERT_EQ(fromPlan.ok(), fromEngine.ok());
        if (fromPlan.ok()) {
            EXPECT_EQ(*fromPlan, *fromEngine);
            engineSized += fromPlan->computeApproximation.empty() ? 1 : 0;
        }
    }
    // Most are the engine's: on lavapipe the largest caches outgrow its 128 MiB storage range,
    // where ggml aborts and the estimate falls back to the closed form, plan or no plan.
    EXPECT_GE(engineSized, 12);
}

INSTANTIATE_TEST_SUITE_P(PlanCache, PlanCacheCases, testing::Range<std::size_t>(0, 6),
                         [](const testing::TestParamInfo<std::size_t>& info) {
                             std::string name = cases()[info.param].name;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// One plan, compiled at the first context a user picks, answers the whole context slider of a
// dense model on the CPU: the allocator's choices and the scheduler's split stay as they were.
TEST(PlanCache, OnePlanSpansTheContextSliderOfADenseModel) {
    const ModelInfo model = test::llama3_8B();
    ServerSettings settings;
    settings.contextTokens = 8192;
    settings.parallelSlots = 1;
    const ResolvedContext context = resolveContext(model, settings).value();
    const KvPlan kv = sizeKvCaches(model, settings, context);
    const LayerPlacement layers = placeLayers(model, settings, {}).value();
    ComputePlanCache plans;
    ASSERT_TRUE(engineComputeBuffers(model, settings, context, kv, {}, layers, {}, &plans));
    const std::vector<GpuDevice> noGpus;
    const std::vector<LoraAdapterInfo> noAdapters;
    const ComputePlanQuery query{
        ComputePlanQuery::Kind::ComputeBuffers, settings, context, kv.caches, noGpus, layers, noAdapters};
    for (std::uint32_t cells = 256; cells <= 262144; cells *= 2) {
        EXPECT_TRUE(plans.find(query, cells)) << cells;
    }
    EXPECT_FALSE(plans.find(query, 8192 + 100)) << "not a whole number of 256-cell steps";
}

} // namespace
} // namespace llamafit

// planModelSet: several models' pools stacked, which subsets fit and the safe --models-max, on a
// hand-made machine whose VRAM is sized from the models' own single placements, so each
// boundary (exactly fits with the margin, one byte over) is known by construction.
#include "core/common/units.h"
#include "core/machine/poolusage.h"
#include "core/model/modelsource.h"
#include "core/modelset/modelsetplan.h"
#include "core/sizing/estimator.h"
#include "tests/support/modelfiles.h"
#include "tests/support/tempfolder.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr std::size_t kVram = 0;
constexpr std::size_t kHost = 1;

// A discrete GPU (CUDA0) with `vramBytes` of which 512 MiB are the desktop's, and 256 GiB of
// system RAM (so the host side never decides), 8 GiB of it the OS's.
Machine testMachine(std::uint64_t vramBytes, std::uint64_t hostBytes = 256 * kGiB) {
    Machine machine;
    machine.id = "test-gpu";
    machine.name = "test GPU machine";
    machine.pools = {MemoryPool{"VRAM", PoolKind::DiscreteVram, vramBytes, true, 512 * kMiB, std::nullopt},
                     MemoryPool{"System RAM", PoolKind::HostRam, hostBytes, true, 8 * kGiB, std::nullopt}};
    machine.hostPoolIndex = kHost;
    machine.gpus = {MachineGpu{"CUDA0", "test GPU", Backend::Cuda, false, kVram, {}}};
    return machine;
}

SetMember cardMember(const std::string& name, const std::string& card, ServerSettings settings) {
    Result<LoadedModel> model = loadModel(card);
    EXPECT_TRUE(model) << model.error().message;
    return SetMember{name, model ? model->info : ModelInfo{}, std::move(settings), {}};
}

ServerSettings withContext(std::uint32_t tokens) {
    ServerSettings settings;
    settings.contextTokens = tokens;
    settings.parallelSlots = 1;
    return settings;
}

// What one member alone puts in the VRAM pool (its own buffers, no reservation).
std::uint64_t aloneInVram(const SetMember& member, const Machine& machine) {
    Result<MemoryEstimate> estimate = estimateMemory(member.model, member.settings, sizingGpus(machine));
    EXPECT_TRUE(estimate);
    return placeOnMachine(*estimate, member.settings, member.model, machine).pools[kVram].llamaAtLoadBytes;
}

std::uint64_t kvBytesIn(const PoolLoad& load) {
    std::uint64_t bytes = 0;
    for (const PoolTerm& term : load.terms) {
        bytes += term.component == Component::Kv ? term.bytes : 0;
    }
    return bytes;
}

class ModelSetPlanTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_folder = test::makeTempFolder("modelsetplan");
        ASSERT_FALSE(m_folder.empty());
        ASSERT_TRUE(test::writeTinyModel(m_folder + "/tiny.gguf"));
        Result<LoadedModel> tiny = loadModel(m_folder + "/tiny.gguf");
        ASSERT_TRUE(tiny) << tiny.error().message;
        m_tiny = tiny->info;
        m_members = {cardMember("big", "llama-3-8b-q4_k_m", withContext(8192)),
                     cardMember("small", "llama-3.2-1b-q8_0", withContext(4096)),
                     SetMember{"tiny", m_tiny, withContext(512), {}}};
        const Machine probe = testMachine(64 * kGiB);
        for (const SetMember& member : m_members) {
            m_alone.push_back(aloneInVram(member, probe));
        }
        // The boundaries below rely on this order of sizes.
        ASSERT_GT(m_alone[0], m_alone[1]);
        ASSERT_GT(m_alone[1], m_alone[2]);
    }
    void TearDown() override { std::filesystem::remove_all(m_folder); }

    // VRAM in which big + small fit exactly with the 1024 MiB margin.
    std::uint64_t bigAndSmallExactly() const { return 512 * kMiB + m_alone[0] + m_alone[1] + kGiB; }

    std::string m_folder;
    ModelInfo m_tiny;
    std::vector<SetMember> m_members;
    std::vector<std::uint64_t> m_alone;
};

TEST_F(ModelSetPlanTest, PoolsAreTheReservationOnceAndEveryModelsShare) {
    const Result<ModelSetPlan> plan = planModelSet(m_members, testMachine(64 * kGiB));
    ASSERT_TRUE(plan) << plan.error().message;
    const PoolLoad& vram = plan->together.pools[kVram];
    EXPECT_EQ(vram.llamaAtLoadBytes, m_alone[0] + m_alone[1] + m_alone[2]);
    EXPECT_EQ(vram.atLoadBytes, 512 * kMiB + m_alone[0] + m_alone[1] + m_alone[2]);
    for (std::size_t i = 0; i < m_members.size(); ++i) {
        EXPECT_EQ(memberShare(plan->members[i], kVram).atLoadBytes, m_alone[i]);
    }
    // The host reservation is the OS's once, not once per model.
    const PoolLoad& host = plan->together.pools[kHost];
    EXPECT_EQ(host.atLoadBytes - host.llamaAtLoadBytes, 8 * kGiB);
    // Each model keeps its own prompt cache (--cache-ram, 8192 MiB by default): three bounds.
    EXPECT_EQ(host.upToBytes - host.atLoadBytes, 3 * 8192 * kMiB);
    EXPECT_EQ(plan->safeModelsMax, 3);
    EXPECT_EQ(plan->loadableModelsMax, 3);
    EXPECT_EQ(plan->largestFittingSet, (std::vector<std::size_t>{0, 1, 2}));
}

TEST_F(ModelSetPlanTest, KvOfTheTinyModelsAddsUpAsWorkedByHand) {
    // The tiny llama: 2 layers, 2 KV heads x 16 dims = 32 K and 32 V values per token and
    // layer, f16 (2 bytes): 2 layers x 2 x 32 x 2 B = 256 B per cell (llama.cpp
    // src/llama-kv-cache.cpp: one K and one V tensor of n_embd_k_gqa x kv_size per layer).
    // -c 512 -> 128 KiB, -c 2048 -> 512 KiB.
    const std::vector<SetMember> members{SetMember{"a", m_tiny, withContext(512), {}},
                                         SetMember{"b", m_tiny, withContext(2048), {}}};
    const Result<ModelSetPlan> plan = planModelSet(members, testMachine(64 * kGiB));
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(kvBytesIn(plan->members[0].usage.pools[kVram]), 128 * 1024U);
    EXPECT_EQ(kvBytesIn(plan->members[1].usage.pools[kVram]), 512 * 1024U);
    EXPECT_EQ(kvBytesIn(plan->together.pools[kVram]), 640 * 1024U);
}

// A member's -md draft is part of its share: the tiny model drafting for itself adds its own
// KV cache (128 KiB at -c 512) on top of the target's.
TEST_F(ModelSetPlanTest, AMembersDraftModelIsPartOfItsShare) {
    ServerSettings withDraft = withContext(512);
    withDraft.draftModel.path = m_folder + "/tiny.gguf";
    const std::vector<SetMember> members{
        SetMember{"plain", m_tiny, withContext(512), {}},
        SetMember{"drafted", m_tiny, withDraft, CompanionModels{{}, m_tiny, std::nullopt}}};
    const Result<ModelSetPlan> plan = planModelSet(members, testMachine(64 * kGiB));
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(kvBytesIn(plan->members[0].usage.pools[kVram]), 128 * 1024U);
    EXPECT_EQ(kvBytesIn(plan->members[1].usage.pools[kVram]), 2 * 128 * 1024U);
    ASSERT_TRUE(plan->members[1].estimate.draft.has_value());
}

TEST_F(ModelSetPlanTest, TheTwoLargestFittingExactlyMakeTwoSafe) {
    const Result<ModelSetPlan> plan = planModelSet(m_members, testMachine(bigAndSmallExactly()));
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->safeModelsMax, 2);
    ASSERT_EQ(plan->subsets.size(), 7U); // 2^3 - 1
    EXPECT_EQ(plan->subsets[3].members, (std::vector<std::size_t>{0, 1}));
    EXPECT_EQ(plan->subsets[3].verdict, FitVerdict::Fits);
    EXPECT_EQ(plan->subsets[6].members, (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(plan->subsets[6].verdict, FitVerdict::Tight); // within the margin, still loads
    EXPECT_NE(plan->together.verdict, FitVerdict::Fits);
    EXPECT_EQ(plan->largestFittingSet, (std::vector<std::size_t>{0, 1}));
}

TEST_F(ModelSetPlanTest, OneByteLessLeavesOnlyPairsWithTheTinyModel) {
    const Result<ModelSetPlan> plan = planModelSet(m_members, testMachine(bigAndSmallExactly() - 1));
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->safeModelsMax, 1);
    EXPECT_EQ(plan->subsets[3].verdict, FitVerdict::Tight);                // big + small
    EXPECT_EQ(plan->subsets[4].members, (std::vector<std::size_t>{0, 2})); // big + tiny
    EXPECT_EQ(plan->subsets[4].verdict, FitVerdict::Fits);
    EXPECT_EQ(plan->largestFittingSet, (std::vector<std::size_t>{0, 2})); // the first pair that fits
}

TEST_F(ModelSetPlanTest, RunTimeGrowthLimitsTheSafeCountNotTheLoadableOne) {
    const Result<ModelSetPlan> roomy = planModelSet(m_members, testMachine(64 * kGiB));
    ASSERT_TRUE(roomy) << roomy.error().message;
    const std::uint64_t hostAtLoad = roomy->together.pools[kHost].llamaAtLoadBytes;
    // Room for all three at load and two prompt caches (--cache-ram 8192 MiB each), with the margin.
    const Machine machine = testMachine(64 * kGiB, 8 * kGiB + hostAtLoad + kGiB + 2 * 8192 * kMiB);
    const Result<ModelSetPlan> plan = planModelSet(m_members, machine);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->loadableModelsMax, 3);
    EXPECT_EQ(plan->safeModelsMax, 2);
    EXPECT_EQ(plan->together.pools[kHost].verdict, FitVerdict::Tight);
}

TEST_F(ModelSetPlanTest, ABigModelThatDoesNotFitAloneMakesZeroSafe) {
    const Result<ModelSetPlan> plan = planModelSet(m_members, testMachine(512 * kMiB + m_alone[0]));
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->safeModelsMax, 0);
    EXPECT_EQ(plan->subsets[0].verdict, FitVerdict::Tight); // big alone: no room for the margin
    EXPECT_EQ(plan->subsets[1].verdict, FitVerdict::Fits);  // small alone
}

TEST_F(ModelSetPlanTest, OneModelStackedIsItsOwnPlacement) {
    const Result<ModelSetPlan> plan = planModelSet({m_members[1]}, testMachine(8 * kGiB));
    ASSERT_TRUE(plan) << plan.error().message;
    PoolUsage alone = plan->members[0].usage;
    EXPECT_EQ(plan->together, alone);
}

TEST_F(ModelSetPlanTest, AModelTheEstimatorRefusesIsNamed) {
    ServerSettings quantizedVWithoutFa = withContext(512);
    quantizedVWithoutFa.cacheTypeV = GgmlType::Q8_0;
    quantizedVWithoutFa.flashAttention = FlashAttention::Off;
    const Result<ModelSetPlan> plan = planModelSet(
        {m_members[2], SetMember{"refused", m_tiny, quantizedVWithoutFa, {}}}, testMachine(8 * kGiB));
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error().code, "settings.quantized-v-needs-fa");
    EXPECT_NE(plan.error().message.find("model 'refused'"), std::string::npos) << plan.error().message;
}

TEST(ModelSetPlan, AnEmptySetIsRefused) {
    const Result<ModelSetPlan> plan = planModelSet({}, Machine{});
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error().code, "modelset.bad-value");
}

} // namespace
} // namespace llamafit

// Host-side terms: the prompt cache and context checkpoints (run-time growth, "up to"), the
// mmap double mapping on an iGPU, and the -cram / -ctxcp flags that set them.
#include "core/common/units.h"
#include "core/flags/serverargs.h"
#include "core/machine/hostterms.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

const HostTerm* findTerm(const std::vector<HostTerm>& terms, HostTermKind kind) {
    const auto it =
        std::find_if(terms.begin(), terms.end(), [kind](const HostTerm& t) { return t.kind == kind; });
    return it != terms.end() ? &*it : nullptr;
}

std::vector<HostTerm> seedTerms(const ServerSettings& settings) {
    const ModelInfo model = test::seedModel();
    const Machine machine = test::seedMachine();
    return hostTerms(test::estimateOn(model, settings, machine), settings, model, sizingGpus(machine));
}

TEST(HostTerms, SeedCheckpointIsOneSlotOfRecurrentState) {
    const ModelInfo model = test::seedModel();
    const MemoryEstimate estimate = test::estimateOn(model, test::seedSettings(), test::seedMachine());
    // 30 recurrent layers x (24 576 + 524 288) floats x 4 B = 62.8125 MiB per slot (the 251.25 MiB
    // RS buffer / 4 slots), as the HilbertRaum logs show for a qwen35moe checkpoint.
    EXPECT_EQ(checkpointBytesPerSlot(estimate, test::seedSettings()), 65863680u);
}

TEST(HostTerms, SeedDefaultsGrowUpToPromptCacheAndCheckpoints) {
    const std::vector<HostTerm> terms = seedTerms(test::seedSettings());
    const HostTerm* cache = findTerm(terms, HostTermKind::PromptCache);
    ASSERT_NE(cache, nullptr);
    EXPECT_EQ(cache->bytes, 8192 * kMiB);
    EXPECT_TRUE(cache->upTo);
    EXPECT_FALSE(cache->unbounded);
    const HostTerm* checkpoints = findTerm(terms, HostTermKind::ContextCheckpoints);
    ASSERT_NE(checkpoints, nullptr);
    EXPECT_TRUE(checkpoints->upTo);
    EXPECT_EQ(checkpoints->bytes, std::uint64_t{32} * 4 * 65863680); // 32 per slot x 4 slots = 8040 MiB
    // -lm auto on a Vulkan iGPU: mmap is off (ggml-vulkan mmap_support=false), no double mapping.
    EXPECT_EQ(findTerm(terms, HostTermKind::MmapPageCache), nullptr);
}

TEST(HostTerms, MmapOnAnIgpuHoldsTheWeightsTwice) {
    ServerSettings settings = test::seedSettings();
    settings.loadMode = LoadMode::Mmap;
    const ModelInfo model = test::seedModel();
    const Machine machine = test::seedMachine();
    const MemoryEstimate estimate = test::estimateOn(model, settings, machine);
    const std::vector<HostTerm> terms = hostTerms(estimate, settings, model, sizingGpus(machine));
    const HostTerm* mmap = findTerm(terms, HostTermKind::MmapPageCache);
    ASSERT_NE(mmap, nullptr);
    EXPECT_FALSE(mmap->upTo);
    ASSERT_EQ(estimate.devices.size(), 2u);
    EXPECT_EQ(mmap->bytes, estimate.devices[1].bytes.modelBytes);
    EXPECT_GT(mmap->bytes, 25 * kGiB);

    // A discrete GPU does not share the DRAM: no double mapping counted.
    Result<Machine> rtx = findBuiltinMachine("rtx-3090-24gb");
    ASSERT_TRUE(rtx.ok());
    const MemoryEstimate discrete = test::estimateOn(model, settings, *rtx);
    EXPECT_EQ(findTerm(hostTerms(discrete, settings, model, sizingGpus(*rtx)), HostTermKind::MmapPageCache),
              nullptr);
}

TEST(HostTerms, FlagsTurnTermsOffOrUnbounded) {
    ServerSettings settings = test::seedSettings();
    settings.cacheRamMiB = 0;
    settings.contextCheckpoints = 0;
    EXPECT_TRUE(seedTerms(settings).empty());

    settings.cacheRamMiB = -1;
    const std::vector<HostTerm> unlimited = seedTerms(settings);
    ASSERT_EQ(unlimited.size(), 1u);
    EXPECT_TRUE(unlimited[0].unbounded);

    settings = test::seedSettings();
    settings.parallelSlots = 1;
    settings.contextCheckpoints = 8;
    const std::vector<HostTerm> terms = seedTerms(settings); // findTerm points into it
    const HostTerm* checkpoints = findTerm(terms, HostTermKind::ContextCheckpoints);
    ASSERT_NE(checkpoints, nullptr);
    EXPECT_EQ(checkpoints->bytes, std::uint64_t{8} * 65863680);
}

TEST(HostTerms, CheckpointsOnlyForModelsThatCannotRollBack) {
    const Machine machine = test::seedMachine();
    ServerSettings settings;
    settings.contextTokens = 8192;
    // A plain transformer rolls its KV back: no checkpoints.
    const ModelInfo llama = test::cardModel("llama-3-8b-q4_k_m");
    const MemoryEstimate dense = test::estimateOn(llama, settings, machine);
    EXPECT_EQ(checkpointBytesPerSlot(dense, settings), 0u);
    EXPECT_EQ(
        findTerm(hostTerms(dense, settings, llama, sizingGpus(machine)), HostTermKind::ContextCheckpoints),
        nullptr);
    // An SWA model checkpoints its SWA cells: one slot's share of the SWA cache.
    const ModelInfo gemma = test::cardModel("gemma-3-12b-q4_k_m");
    const MemoryEstimate swa = test::estimateOn(gemma, settings, machine);
    std::uint64_t swaBytes = 0;
    for (const KvCacheEstimate& cache : swa.kvCaches) {
        swaBytes += cache.swa ? cache.kBytes + cache.vBytes : 0;
    }
    ASSERT_GT(swaBytes, 0u);
    EXPECT_EQ(checkpointBytesPerSlot(swa, settings), swaBytes / swa.context.nSeqMax);
    // --swa-full keeps the whole window: nothing to checkpoint.
    settings.swaFull = true;
    const MemoryEstimate full = test::estimateOn(gemma, settings, machine);
    EXPECT_EQ(
        findTerm(hostTerms(full, settings, gemma, sizingGpus(machine)), HostTermKind::ContextCheckpoints),
        nullptr);
}

TEST(HostTerms, ServerFlagsReadCacheRamAndCheckpoints) {
    Result<ParsedServerArgs> parsed = parseServerArgs({"-cram", "4096", "--ctx-checkpoints", "8"});
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->settings.cacheRamMiB, 4096);
    EXPECT_EQ(parsed->settings.contextCheckpoints, 8);
    EXPECT_TRUE(parsed->unmodelledFlags.empty());
    parsed = parseServerArgs({"--cache-ram=-1", "--swa-checkpoints", "0"});
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->settings.cacheRamMiB, -1);
    EXPECT_EQ(parsed->settings.contextCheckpoints, 0);
    EXPECT_EQ(parseServerArgs({"-cram", "lots"}).error().code, "args.bad-value");
    // Defaults are not spelled out; others round-trip.
    EXPECT_TRUE(toServerArgs(ServerSettings{}).empty());
    ServerSettings settings;
    settings.cacheRamMiB = 0;
    settings.contextCheckpoints = 4;
    const std::vector<std::string> expected{"-cram", "0", "-ctxcp", "4"};
    EXPECT_EQ(toServerArgs(settings), expected);
    EXPECT_EQ(parseServerArgs(toServerArgs(settings))->settings, settings);
}

} // namespace
} // namespace llamafit

// placeOnMachine on the seed: the VRAM side near 29 GB of 32 GB, system RAM ~19 GB left after
// the OS, plus the run-time growth the seed article did not count.
#include "core/common/units.h"
#include "core/machine/poolusage.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

PoolUsage seedUsage(const ServerSettings& settings = test::seedSettings(),
                    const Machine& machine = test::seedMachine()) {
    const ModelInfo model = test::seedModel();
    return placeOnMachine(test::estimateOn(model, settings, machine), settings, model, machine);
}

TEST(PoolUsage, SeedVramSideIsNear29GbOf32) {
    const PoolUsage usage = seedUsage();
    const PoolLoad* vram = usage.find(PoolKind::ApuCarveout);
    ASSERT_NE(vram, nullptr);
    EXPECT_EQ(vram->capacityBytes, 32 * kGiB);
    // llama-server's own part on Vulkan0: weights ~26.2 GiB (all 40 blocks and the output head;
    // token_embd stays on the CPU), KV 680 MiB (10 attention layers x 65536 cells, q8_0 = 34 B per
    // 32 values), RS 251.25 MiB (4 slots), compute ~140 MiB, and LlamaFit's 256 MiB Vulkan
    // driver/scratch allowance: ~27.5 GiB.
    EXPECT_GE(vram->llamaAtLoadBytes, 27 * kGiB);
    EXPECT_LE(vram->llamaAtLoadBytes, 28 * kGiB);
    // Plus ~0.8 GiB the desktop and Parsec hold: the seed's "model + ctx + compute ~ 29 GB of 32 GB"
    // (Windows' "GB" are GiB), "~3 GB left".
    EXPECT_GE(vram->atLoadBytes, 28 * kGiB);
    EXPECT_LE(vram->atLoadBytes, 29 * kGiB + 512 * kMiB);
    EXPECT_GE(vram->headroomBytes, static_cast<std::int64_t>(2 * kGiB + 512 * kMiB));
    EXPECT_EQ(vram->verdict, FitVerdict::Fits);
    EXPECT_EQ(vram->terms.front().rule.id, SizeRuleId::GpuReservation);
}

TEST(PoolUsage, SeedSystemRamKeeps19GbAfterTheOs) {
    const PoolUsage usage = seedUsage();
    const PoolLoad* ram = usage.find(PoolKind::HostRam);
    ASSERT_NE(ram, nullptr);
    EXPECT_EQ(ram->capacityBytes, 32 * kGiB);
    ASSERT_FALSE(ram->terms.empty());
    EXPECT_TRUE(ram->terms.front().reservation);
    EXPECT_EQ(ram->terms.front().bytes, 13 * kGiB); // OS + Parsec + Tailscale
    // At load llama-server adds only token_embd (Vulkan_Host), the logits and a small compute buffer.
    EXPECT_LT(ram->llamaAtLoadBytes, 1 * kGiB);
    EXPECT_GT(ram->headroomBytes, static_cast<std::int64_t>(18 * kGiB));
    EXPECT_LE(ram->headroomBytes, static_cast<std::int64_t>(19 * kGiB));
    // Over time the prompt cache (8 GiB) and 4 x 32 checkpoints (7.85 GiB) may take most of it,
    // still leaving more than the 1 GiB margin.
    EXPECT_EQ(ram->upToBytes - ram->atLoadBytes, 8192 * kMiB + std::uint64_t{128} * 65863680);
    EXPECT_GT(ram->worstHeadroomBytes, static_cast<std::int64_t>(kGiB));
    EXPECT_LT(ram->worstHeadroomBytes, static_cast<std::int64_t>(4 * kGiB));
    EXPECT_EQ(ram->verdict, FitVerdict::Fits);
    EXPECT_EQ(usage.verdict, FitVerdict::Fits);
}

TEST(PoolUsage, VerdictsFollowTheMargin) {
    ServerSettings settings = test::seedSettings();
    settings.cacheRamMiB = -1;
    EXPECT_EQ(seedUsage(settings).find(PoolKind::HostRam)->verdict, FitVerdict::Tight);

    // 16 GiB carve-out: the 26 GiB of weights do not fit.
    const std::optional<Machine> small = withCarveOut(test::seedMachine(), 16 * kGiB);
    ASSERT_TRUE(small.has_value());
    const PoolUsage over = seedUsage(test::seedSettings(), *small);
    EXPECT_EQ(over.find(PoolKind::ApuCarveout)->verdict, FitVerdict::DoesNotFit);
    EXPECT_LT(over.find(PoolKind::ApuCarveout)->headroomBytes, 0);
    EXPECT_EQ(over.verdict, FitVerdict::DoesNotFit);

    // A margin larger than the headroom makes the same placement tight.
    const ModelInfo model = test::seedModel();
    const Machine machine = test::seedMachine();
    PlacementOptions strict;
    strict.marginBytes = 5 * kGiB;
    const PoolUsage tight = placeOnMachine(test::estimateOn(model, test::seedSettings(), machine),
                                           test::seedSettings(), model, machine, strict);
    EXPECT_EQ(tight.find(PoolKind::ApuCarveout)->verdict, FitVerdict::Tight);
}

TEST(PoolUsage, SharedMemoryGpuCountsAgainstSystemRam) {
    // A Linux Strix Halo set up the lhl/strix-halo-testing way: 512 MiB carve-out, 120 GiB GTT.
    ApuConfig config;
    config.name = "minimal carve-out";
    config.os = OsKind::Linux;
    config.physicalBytes = 128 * kGiB;
    config.carveOutBytes = 512 * kMiB;
    config.osUseBytes = 4 * kGiB;
    config.gttLimitBytes = 120 * kGiB;
    config.gpuUsesSharedMemory = true;
    const Machine machine = makeApuMachine(config);
    const PoolUsage usage = seedUsage(test::seedSettings(), machine);
    const PoolLoad* gtt = usage.find(PoolKind::ApuShared);
    const PoolLoad* ram = usage.find(PoolKind::HostRam);
    ASSERT_NE(gtt, nullptr);
    ASSERT_NE(ram, nullptr);
    EXPECT_EQ(gtt->capacityBytes, 120 * kGiB);
    EXPECT_GT(gtt->llamaAtLoadBytes, 27 * kGiB);
    // The GPU's bytes are system RAM too.
    EXPECT_GT(ram->llamaAtLoadBytes, gtt->llamaAtLoadBytes);
    EXPECT_EQ(usage.find(PoolKind::ApuCarveout)->llamaAtLoadBytes, 0u);
    EXPECT_EQ(usage.verdict, FitVerdict::Fits);
}

TEST(PoolUsage, UnknownPoolSizeIsReportedNotGuessed) {
    Machine machine = test::seedMachine();
    machine.pools[machine.hostPoolIndex].capacityKnown = false;
    machine.pools[machine.hostPoolIndex].capacityBytes = 0;
    const PoolUsage usage = seedUsage(test::seedSettings(), machine);
    EXPECT_EQ(usage.find(PoolKind::HostRam)->verdict, FitVerdict::Unknown);
    // The GPU side is still answered.
    EXPECT_EQ(usage.find(PoolKind::ApuCarveout)->verdict, FitVerdict::Fits);
    EXPECT_EQ(usage.verdict, FitVerdict::Fits);
    ASSERT_FALSE(usage.notes.empty());
    EXPECT_NE(usage.notes.back().find("size unknown"), std::string::npos);
}

TEST(PoolUsage, CpuOnlyMachinePutsEverythingInSystemRam) {
    Result<Machine> cpu = findBuiltinMachine("cpu-only");
    ASSERT_TRUE(cpu.ok());
    ServerSettings settings;
    settings.contextTokens = 32768;
    const ModelInfo model = test::cardModel("llama-3-8b-q4_k_m");
    const MemoryEstimate estimate = test::estimateOn(model, settings, *cpu);
    const PoolUsage usage = placeOnMachine(estimate, settings, model, *cpu);
    ASSERT_EQ(usage.pools.size(), 1u);
    EXPECT_EQ(usage.pools[0].llamaAtLoadBytes, estimate.totals.totalBytes());
    EXPECT_EQ(fitVerdictName(usage.verdict), "fits");
}

} // namespace
} // namespace llamafit

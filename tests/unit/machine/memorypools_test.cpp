// The pool model: an APU is a carve-out and system RAM out of one DRAM plus a shared window,
// and llama.cpp's Vulkan "free" on an iGPU is the sum of heaps (the seed's 46,522 MiB).
#include "core/common/units.h"
#include "core/machine/backendreport.h"
#include "core/machine/memorypools.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(MemoryPools, SeedMachineIsTwoPoolsOfOneDram) {
    const Machine machine = test::seedMachine();
    ASSERT_TRUE(isApu(machine));
    ASSERT_TRUE(machine.biosSplit.has_value());
    EXPECT_EQ(machine.biosSplit->physicalBytes, 64 * kGiB);
    const MemoryPool* carve = findPool(machine, PoolKind::ApuCarveout);
    const MemoryPool* host = findPool(machine, PoolKind::HostRam);
    const MemoryPool* shared = findPool(machine, PoolKind::ApuShared);
    ASSERT_NE(carve, nullptr);
    ASSERT_NE(host, nullptr);
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(carve->capacityBytes, 32 * kGiB);
    EXPECT_EQ(host->capacityBytes, 32 * kGiB);
    EXPECT_EQ(carve->capacityBytes + host->capacityBytes, machine.biosSplit->physicalBytes);
    // Seed: ~13 GB used by the OS, Parsec and Tailscale -> 19 GB of system RAM left.
    EXPECT_EQ(host->usableBytes(), 19 * kGiB);
    // Windows: shared GPU memory = half the RAM the OS sees; it maps the system-RAM pool.
    EXPECT_EQ(shared->capacityBytes, 16 * kGiB);
    ASSERT_TRUE(shared->sharesPhysicalWith.has_value());
    EXPECT_EQ(&machine.pools[*shared->sharesPhysicalWith], host);
    ASSERT_EQ(machine.gpus.size(), 1u);
    EXPECT_TRUE(machine.gpus[0].integrated);
    EXPECT_EQ(&machine.pools[machine.gpus[0].poolIndex], carve);
}

TEST(MemoryPools, SharedWindowFollowsTheDriverRules) {
    // Linux amdgpu: max(3 GiB, RAM/2) by default.
    EXPECT_EQ(sharedWindowBytes(OsKind::Linux, 32 * kGiB, std::nullopt), 16 * kGiB);
    EXPECT_EQ(sharedWindowBytes(OsKind::Linux, 4 * kGiB, std::nullopt), 3 * kGiB);
    // ttm.pages_limit=31457280 (4 KiB pages) = 120 GiB, and never more than the RAM itself.
    EXPECT_EQ(sharedWindowBytes(OsKind::Linux, 127 * kGiB, 31457280ULL * 4 * kKiB), 120 * kGiB);
    EXPECT_EQ(sharedWindowBytes(OsKind::Linux, 32 * kGiB, 120 * kGiB), 32 * kGiB);
    // Windows: RAM/2 whatever the kernel tunables say.
    EXPECT_EQ(sharedWindowBytes(OsKind::Windows, 32 * kGiB, 120 * kGiB), 16 * kGiB);
}

TEST(MemoryPools, AnotherCarveOutMovesMemoryBetweenThePools) {
    const Machine machine = test::seedMachine();
    const std::optional<Machine> split = withCarveOut(machine, 16 * kGiB);
    ASSERT_TRUE(split.has_value());
    EXPECT_EQ(findPool(*split, PoolKind::ApuCarveout)->capacityBytes, 16 * kGiB);
    EXPECT_EQ(findPool(*split, PoolKind::HostRam)->capacityBytes, 48 * kGiB);
    EXPECT_EQ(findPool(*split, PoolKind::ApuShared)->capacityBytes, 24 * kGiB);
    // Reservations stay; the observed driver figure belonged to the old split.
    EXPECT_EQ(findPool(*split, PoolKind::HostRam)->reservedByOsBytes, 13 * kGiB);
    EXPECT_FALSE(split->observedBackendFreeBytes.has_value());
    EXPECT_FALSE(withCarveOut(machine, 64 * kGiB).has_value());

    Machine discrete;
    discrete.pools.push_back(MemoryPool{"System RAM", PoolKind::HostRam, 32 * kGiB, true, 0, std::nullopt});
    EXPECT_FALSE(withCarveOut(discrete, 8 * kGiB).has_value());
}

TEST(MemoryPools, SizingGpusUseTheUsablePartOfTheirPool) {
    const Machine machine = test::seedMachine();
    const std::vector<GpuDevice> gpus = sizingGpus(machine);
    ASSERT_EQ(gpus.size(), 1u);
    EXPECT_EQ(gpus[0].name, "Vulkan0");
    EXPECT_EQ(gpus[0].backend, Backend::Vulkan);
    EXPECT_TRUE(gpus[0].integrated);
    EXPECT_EQ(gpus[0].memoryBytes, 32 * kGiB - 800 * kMiB);
}

// Seed article 000: "Vulkan0 ... free: 46,522 MiB" on a 32 GB carve-out. ggml-vulkan sums every
// heap of an integrated GPU, so the figure is the carve-out plus the shared heap.
TEST(BackendReport, SeedFreeFigureIsExplained) {
    const Machine machine = test::seedMachine();
    const BackendMemoryView view = backendMemoryView(machine, 0);
    EXPECT_EQ(view.device, "Vulkan0");
    EXPECT_TRUE(view.freeObserved);
    EXPECT_EQ(view.reportedFreeBytes, 46522 * kMiB);
    EXPECT_EQ(view.reportedTotalBytes, 48 * kGiB); // 32 GiB carve-out heap + 16 GiB shared heap
    EXPECT_EQ(view.planLimitBytes, 32 * kGiB - 800 * kMiB);
    EXPECT_GT(view.reportedFreeBytes, view.planLimitBytes + 13 * kGiB);
    for (const char* part :
         {"46,522 MiB free", "every memory heap of an integrated GPU", "32 GiB BIOS carve-out",
          "~13.4 GiB of shared GPU memory", "plans against the 32 GiB carve-out"}) {
        EXPECT_NE(view.explanation.find(part), std::string::npos) << part << "\n" << view.explanation;
    }
    EXPECT_EQ(view.explanation.find('\n'), std::string::npos);
}

TEST(BackendReport, PredictedFreeIsCloseToTheSeedObservation) {
    Machine machine = test::seedMachine();
    machine.observedBackendFreeBytes.reset();
    const BackendMemoryView view = backendMemoryView(machine, 0);
    EXPECT_FALSE(view.freeObserved);
    // Carve-out less the desktop's share plus the whole shared heap: an upper estimate, within
    // 5 % of what the driver printed (budgets also subtract what other programs map).
    EXPECT_GE(view.reportedFreeBytes, 46522 * kMiB);
    EXPECT_LE(view.reportedFreeBytes, 46522 * kMiB * 105 / 100);
    EXPECT_NE(view.explanation.find("will report about"), std::string::npos);
}

TEST(BackendReport, DiscreteAndCpuOnlyViews) {
    Result<Machine> rtx = findBuiltinMachine("rtx-4060-8gb");
    ASSERT_TRUE(rtx.ok());
    const BackendMemoryView gpu = backendMemoryView(*rtx, 0);
    EXPECT_EQ(gpu.reportedTotalBytes, 8 * kGiB);
    EXPECT_EQ(gpu.planLimitBytes, 8 * kGiB - 512 * kMiB);
    EXPECT_NE(gpu.explanation.find("CUDA reports the card's own 8 GiB"), std::string::npos)
        << gpu.explanation;

    Result<Machine> cpu = findBuiltinMachine("cpu-only");
    ASSERT_TRUE(cpu.ok());
    const BackendMemoryView host = backendMemoryView(*cpu, 0);
    EXPECT_EQ(host.device, "CPU");
    EXPECT_EQ(host.planLimitBytes, 26 * kGiB);
    EXPECT_NE(host.explanation.find("No GPU"), std::string::npos);
}

TEST(BackendReport, NumberSpellings) {
    EXPECT_EQ(formatMiBGrouped(46522 * kMiB), "46,522 MiB");
    EXPECT_EQ(formatMiBGrouped(512 * kMiB), "512 MiB");
    EXPECT_EQ(formatMiBGrouped(1234567 * kMiB), "1,234,567 MiB");
    EXPECT_EQ(formatGiBShort(32 * kGiB), "32 GiB");
    EXPECT_EQ(formatGiBShort(13754 * kMiB), "13.4 GiB");
}

} // namespace
} // namespace llamafit

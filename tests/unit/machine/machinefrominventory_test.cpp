// Discovery -> pools: an amdgpu APU at 32/32, a minimal carve-out with a large GTT, discrete
// cards, and an inventory with missing sources that still gives a usable, honest answer.
#include "core/common/units.h"
#include "core/machine/backendreport.h"
#include "core/machine/machinefrominventory.h"
#include "core/machine/poolusage.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

bool mentions(const std::vector<std::string>& lines, std::string_view text) {
    return std::any_of(lines.begin(), lines.end(),
                       [text](const std::string& line) { return line.find(text) != std::string::npos; });
}

GpuInfo strixHalo(std::uint64_t carveOut, std::uint64_t gtt) {
    GpuInfo gpu;
    gpu.name = "AMD Radeon 8060S Graphics (RADV GFX1151)";
    gpu.vendorId = 0x1002;
    gpu.type = GpuType::Integrated;
    gpu.source = "vulkan";
    gpu.memoryBudget = true;
    gpu.heaps.push_back(MemoryHeap{carveOut, true, carveOut - 256 * kMiB, 300 * kMiB});
    gpu.heaps.push_back(MemoryHeap{gtt, false, gtt - kGiB, 200 * kMiB});
    gpu.amdgpu = AmdgpuMemory{"card1", carveOut, 300 * kMiB, carveOut, gtt, 200 * kMiB};
    return gpu;
}

MachineInventory linuxApu(std::uint64_t carveOut, std::uint64_t gtt, std::uint64_t memTotal) {
    MachineInventory inventory;
    inventory.cpuName = "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S";
    inventory.logicalCpuCount = 32;
    inventory.hostMemory = HostMemory{memTotal, memTotal - 4 * kGiB};
    inventory.gpus.push_back(strixHalo(carveOut, gtt));
    inventory.sources = {{"vulkan", true, "1 physical device"},
                         {"amdgpu-sysfs", true, "card1"},
                         {"proc-meminfo", true, ""},
                         {"nvml", false, "libnvidia-ml.so.1 not found"}};
    return inventory;
}

TEST(MachineFromInventory, AmdgpuApuAt32Of32) {
    // MemTotal a little under the 32 GiB the OS side gets, as Linux reports it.
    const std::uint64_t memTotal = 31 * kGiB + 700 * kMiB;
    const Machine machine = machineFromInventory(linuxApu(32 * kGiB, memTotal / 2, memTotal));
    EXPECT_EQ(machine.os, OsKind::Linux);
    ASSERT_TRUE(isApu(machine));
    EXPECT_EQ(findPool(machine, PoolKind::ApuCarveout)->capacityBytes, 32 * kGiB);
    EXPECT_EQ(findPool(machine, PoolKind::ApuCarveout)->reservedByOsBytes, 300 * kMiB);
    EXPECT_EQ(findPool(machine, PoolKind::HostRam)->capacityBytes, memTotal);
    EXPECT_EQ(findPool(machine, PoolKind::HostRam)->reservedByOsBytes, 4 * kGiB);
    EXPECT_EQ(findPool(machine, PoolKind::ApuShared)->capacityBytes, memTotal / 2);
    ASSERT_EQ(machine.gpus.size(), 1u);
    EXPECT_EQ(machine.pools[machine.gpus[0].poolIndex].kind, PoolKind::ApuCarveout);
    ASSERT_TRUE(machine.biosSplit.has_value());
    EXPECT_EQ(machine.biosSplit->physicalBytes, 32 * kGiB + memTotal);
    EXPECT_EQ(machine.biosSplit->offeredCarveOutBytes.back(), 48 * kGiB); // the Strix Halo 64 GB list
    EXPECT_EQ(*machine.bandwidthBytesPerSecond, 256'000'000'000u);
    // ggml-vulkan's free on an iGPU: budget - usage of every heap.
    EXPECT_EQ(*machine.observedBackendFreeBytes,
              (32 * kGiB - 556 * kMiB) + (memTotal / 2 - kGiB - 200 * kMiB));
    EXPECT_TRUE(mentions(machine.sources, "vulkan"));
    EXPECT_TRUE(mentions(machine.notes, "nvml: missing, libnvidia-ml.so.1 not found"));
    EXPECT_NE(backendMemoryView(machine, 0).explanation.find("GTT memory"), std::string::npos);
}

TEST(MachineFromInventory, MinimalCarveOutWorksFromGtt) {
    // dmesg "amdgpu: 512M of VRAM memory ready" + "108000M of GTT memory ready" (memtest_vulkan#66).
    const Machine machine = machineFromInventory(linuxApu(512 * kMiB, 108000 * kMiB, 123 * kGiB));
    ASSERT_EQ(machine.gpus.size(), 1u);
    const MemoryPool& pool = machine.pools[machine.gpus[0].poolIndex];
    EXPECT_EQ(pool.kind, PoolKind::ApuShared);
    EXPECT_EQ(pool.capacityBytes, 108000 * kMiB);
    EXPECT_EQ(machine.biosSplit->offeredCarveOutBytes.back(), 96 * kGiB); // 128 GB list
}

TEST(MachineFromInventory, DiscreteCardsGetTheirOwnPools) {
    MachineInventory inventory;
    inventory.hostMemory = HostMemory{64 * kGiB, 50 * kGiB};
    GpuInfo nvidia;
    nvidia.name = "NVIDIA GeForce RTX 3090";
    nvidia.vendorId = 0x10de;
    nvidia.type = GpuType::Discrete;
    nvidia.nvml = NvmlMemory{24 * kGiB, 400 * kMiB, 24 * kGiB - 400 * kMiB};
    GpuInfo amd;
    amd.name = "AMD Radeon RX 7900 XTX";
    amd.vendorId = 0x1002;
    amd.type = GpuType::Discrete;
    amd.amdgpu = AmdgpuMemory{"card0", 24 * kGiB, 1 * kGiB, 256 * kMiB, 32 * kGiB, 0};
    GpuInfo igpu = strixHalo(512 * kMiB, 8 * kGiB); // ignored next to discrete cards, as llama.cpp does
    inventory.gpus = {nvidia, amd, igpu};
    const Machine machine = machineFromInventory(inventory);
    EXPECT_FALSE(isApu(machine));
    ASSERT_EQ(machine.gpus.size(), 2u);
    EXPECT_EQ(machine.gpus[0].name, "CUDA0");
    EXPECT_EQ(machine.gpus[0].backend, Backend::Cuda);
    EXPECT_EQ(machine.gpus[1].name, "Vulkan0");
    EXPECT_EQ(machine.pools[machine.gpus[0].poolIndex].usableBytes(), 24 * kGiB - 400 * kMiB);
    EXPECT_EQ(machine.pools[machine.gpus[1].poolIndex].usableBytes(), 23 * kGiB);
    EXPECT_EQ(machine.pools[machine.hostPoolIndex].reservedByOsBytes, 14 * kGiB);
    EXPECT_TRUE(mentions(machine.notes, "bandwidth unknown"));
}

// /proc/meminfo unreadable and no amdgpu sysfs: the carve-out still comes from the Vulkan heap,
// the system RAM is unknown and says so, and a plan is still made for the GPU side.
TEST(MachineFromInventory, MissingSourcesStillGiveAUsableAnswer) {
    MachineInventory inventory;
    GpuInfo gpu = strixHalo(32 * kGiB, 16 * kGiB);
    gpu.amdgpu.reset();
    gpu.memoryBudget = false;
    for (MemoryHeap& heap : gpu.heaps) {
        heap.budgetBytes.reset();
        heap.usageBytes.reset();
    }
    inventory.gpus.push_back(gpu);
    inventory.sources = {{"vulkan", true, "1 physical device"},
                         {"proc-meminfo", false, "cannot open /proc/meminfo"},
                         {"amdgpu-sysfs", false, "no /sys/class/drm/card*/device/mem_info_vram_total"}};
    const Machine machine = machineFromInventory(inventory);
    EXPECT_EQ(findPool(machine, PoolKind::ApuCarveout)->capacityBytes, 32 * kGiB);
    EXPECT_FALSE(findPool(machine, PoolKind::HostRam)->capacityKnown);
    EXPECT_FALSE(machine.biosSplit.has_value()); // the physical size is unknown: no split to advise
    EXPECT_FALSE(machine.observedBackendFreeBytes.has_value());
    EXPECT_TRUE(mentions(machine.notes, "system RAM size unknown"));
    EXPECT_TRUE(mentions(machine.notes, "proc-meminfo: missing"));

    const ModelInfo model = test::seedModel();
    const MemoryEstimate estimate = test::estimateOn(model, test::seedSettings(), machine);
    const PoolUsage usage = placeOnMachine(estimate, test::seedSettings(), model, machine);
    EXPECT_EQ(usage.find(PoolKind::ApuCarveout)->verdict, FitVerdict::Fits);
    EXPECT_EQ(usage.find(PoolKind::HostRam)->verdict, FitVerdict::Unknown);
    EXPECT_EQ(usage.verdict, FitVerdict::Fits);
}

TEST(MachineFromInventory, CpuTypeVulkanDevicesAreNotGpus) {
    MachineInventory inventory;
    inventory.hostMemory = HostMemory{24 * kGiB, 20 * kGiB};
    GpuInfo lavapipe;
    lavapipe.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    lavapipe.vendorId = 0x10005;
    lavapipe.type = GpuType::Cpu;
    inventory.gpus.push_back(lavapipe);
    EXPECT_FALSE(inventoryHasGpu(inventory));
    const Machine machine = machineFromInventory(inventory);
    EXPECT_TRUE(machine.gpus.empty());
    ASSERT_EQ(machine.pools.size(), 1u);
    EXPECT_EQ(machine.pools[0].usableBytes(), 20 * kGiB);
    EXPECT_TRUE(mentions(machine.notes, "CPU-type Vulkan device"));
}

} // namespace
} // namespace llamafit

// Which discovered device becomes which llama.cpp GPU (machineGpuIndices), and what llama.cpp's
// backend will report as free for it, on a fixture inventory shaped like the seed's EVO-X2 at a
// 32/32 split seen through RADV with VK_EXT_memory_budget, next to lavapipe.

#include "core/common/units.h"
#include "core/machine/backendreport.h"
#include "core/machine/machinefrominventory.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

GpuInfo lavapipe() {
    GpuInfo gpu;
    gpu.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    gpu.vendorId = 0x10005;
    gpu.type = GpuType::Cpu;
    gpu.source = "vulkan";
    gpu.heaps = {MemoryHeap{2 * kGiB, true, std::nullopt, std::nullopt}};
    return gpu;
}

// RADV on the 32/32 EVO-X2: a device-local heap of the carve-out and a host heap of the GTT.
// Budgets minus usage add up to the seed's "free: 46,522 MiB".
MachineInventory evoX2WithBudgets() {
    MachineInventory inventory;
    inventory.cpuName = "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S";
    inventory.hostMemory = HostMemory{31 * kGiB, 19 * kGiB};
    inventory.sources = {{"vulkan", true, "2 physical devices"}, {"proc-meminfo", true, "ok"}};
    GpuInfo igpu;
    igpu.name = "AMD Radeon 8060S Graphics (RADV GFX1151)";
    igpu.vendorId = 0x1002;
    igpu.deviceId = 0x1586;
    igpu.type = GpuType::Integrated;
    igpu.source = "vulkan";
    igpu.memoryBudget = true;
    igpu.heaps = {MemoryHeap{32 * kGiB, true, 32 * kGiB, 800 * kMiB},
                  MemoryHeap{15 * kGiB + 512 * kMiB, false, 14560 * kMiB, 6 * kMiB}};
    igpu.amdgpu = AmdgpuMemory{"card1", 32 * kGiB, 800 * kMiB, 32 * kGiB, 15 * kGiB + 512 * kMiB, 6 * kMiB};
    inventory.gpus = {igpu, lavapipe()};
    return inventory;
}

TEST(BackendView, IntegratedGpuIsTheOnlyLlamaCppDevice) {
    const MachineInventory inventory = evoX2WithBudgets();
    const std::vector<std::optional<std::size_t>> indices = machineGpuIndices(inventory);
    ASSERT_EQ(indices.size(), 2u);
    EXPECT_EQ(indices[0], std::optional<std::size_t>(0));
    EXPECT_FALSE(indices[1]); // lavapipe: a CPU-type device
    const Machine machine = machineFromInventory(inventory);
    ASSERT_EQ(machine.gpus.size(), 1u);
    EXPECT_EQ(machine.gpus[*indices[0]].model, inventory.gpus[0].name);
}

TEST(BackendView, ApuFreeIsTheSumOfHeapsAndIsExplained) {
    const MachineInventory inventory = evoX2WithBudgets();
    const Machine machine = machineFromInventory(inventory);
    const BackendMemoryView view = backendMemoryView(machine, *machineGpuIndices(inventory)[0]);
    std::uint64_t heapFree = 0;
    for (const MemoryHeap& heap : inventory.gpus[0].heaps) {
        heapFree += *heap.budgetBytes - *heap.usageBytes;
    }
    EXPECT_EQ(view.reportedFreeBytes, heapFree);
    EXPECT_EQ(view.reportedFreeBytes, 46522 * kMiB);
    EXPECT_TRUE(view.freeObserved);
    EXPECT_EQ(view.planLimitBytes, 32 * kGiB - 800 * kMiB); // the carve-out, less what the desktop holds
    EXPECT_NE(view.explanation.find("46,522 MiB"), std::string::npos) << view.explanation;
    EXPECT_NE(view.explanation.find("every memory heap of an integrated GPU"), std::string::npos);
}

TEST(BackendView, DiscreteGpusComeInOrderAndAnIgpuBesideThemIsDropped) {
    MachineInventory inventory = evoX2WithBudgets();
    GpuInfo card;
    card.name = "NVIDIA GeForce RTX 3090";
    card.vendorId = 0x10de;
    card.type = GpuType::Discrete;
    card.nvml = NvmlMemory{24 * kGiB, kGiB, 23 * kGiB};
    inventory.gpus.insert(inventory.gpus.begin(), card);
    inventory.gpus.push_back(card);
    const std::vector<std::optional<std::size_t>> indices = machineGpuIndices(inventory);
    ASSERT_EQ(indices.size(), 4u);
    EXPECT_EQ(indices[0], std::optional<std::size_t>(0));
    EXPECT_FALSE(indices[1]); // llama.cpp: integrated GPUs only when no discrete one is found
    EXPECT_FALSE(indices[2]);
    EXPECT_EQ(indices[3], std::optional<std::size_t>(1));
    const Machine machine = machineFromInventory(inventory);
    ASSERT_EQ(machine.gpus.size(), 2u);
    const BackendMemoryView view = backendMemoryView(machine, 1);
    EXPECT_EQ(view.reportedFreeBytes, view.planLimitBytes);
    EXPECT_EQ(view.planLimitBytes, 23 * kGiB);
}

} // namespace
} // namespace llamafit

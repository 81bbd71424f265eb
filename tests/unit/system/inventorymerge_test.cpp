// inventorymerge: attaching amdgpu sysfs cards, NVML devices and DXGI adapters to Vulkan
// devices by PCI bus id or unique PCI ids, and listing the rest on their own.

#include "core/common/units.h"
#include "core/system/inventorymerge.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

GpuInfo vulkanGpu(std::string name, std::uint32_t vendor, std::uint32_t device,
                  std::optional<std::string> bus) {
    GpuInfo gpu;
    gpu.name = std::move(name);
    gpu.vendorId = vendor;
    gpu.deviceId = device;
    gpu.source = "vulkan";
    gpu.pciBusId = std::move(bus);
    return gpu;
}

AmdgpuCard amdCard(std::string card, std::uint32_t device, std::optional<std::string> bus,
                   std::uint64_t vramBytes) {
    AmdgpuCard result;
    result.memory.card = std::move(card);
    result.memory.vramTotalBytes = vramBytes;
    result.vendorId = 0x1002;
    result.deviceId = device;
    result.pciBusId = std::move(bus);
    return result;
}

NvmlDevice nvmlDevice(std::string name, std::uint32_t device, std::string bus, std::uint64_t totalBytes) {
    NvmlDevice result;
    result.name = std::move(name);
    result.vendorId = 0x10de;
    result.deviceId = device;
    result.pciBusId = std::move(bus);
    result.memory = NvmlMemory{totalBytes, 0, totalBytes};
    return result;
}

TEST(PciBusId, Normalizes) {
    EXPECT_EQ(normalizePciBusId("00000000:01:00.0"), "0000:01:00.0"); // NVML's 8-digit domain
    EXPECT_EQ(normalizePciBusId("0000:C5:00.0"), "0000:c5:00.0");
    EXPECT_EQ(normalizePciBusId("c5:00.0"), "0000:c5:00.0");
    EXPECT_EQ(normalizePciBusId("0001:02:1f.7"), "0001:02:1f.7");
    EXPECT_EQ(normalizePciBusId("garbage"), std::nullopt);
    EXPECT_EQ(normalizePciBusId("0000:c5:00"), std::nullopt);
    EXPECT_EQ(normalizePciBusId("0000:100:00.0"), std::nullopt);
    EXPECT_EQ(normalizePciBusId("0000:01:00.8"), std::nullopt);
}

TEST(InventoryMerge, AmdgpuAttachesByBusIdThenByPciIds) {
    std::vector<GpuInfo> gpus{vulkanGpu("llvmpipe", 0x10005, 0, std::nullopt),
                              vulkanGpu("Radeon 8060S (RADV)", 0x1002, 0x1586, "0000:c5:00.0"),
                              vulkanGpu("Radeon RX 7900 XTX (RADV)", 0x1002, 0x744c, std::nullopt)};
    const std::vector<std::size_t> placed =
        attachAmdgpuCards(gpus, {amdCard("card1", 0x1586, "0000:C5:00.0", 512 * kMiB),
                                 amdCard("card2", 0x744c, "0000:03:00.0", 24 * kGiB)});
    ASSERT_EQ(gpus.size(), 3u);
    EXPECT_EQ(placed, (std::vector<std::size_t>{1, 2}));
    ASSERT_TRUE(gpus[1].amdgpu);
    EXPECT_EQ(gpus[1].amdgpu->card, "card1");
    ASSERT_TRUE(gpus[2].amdgpu); // no bus id from Vulkan: the unique 1002:744c matches
    EXPECT_EQ(gpus[2].amdgpu->vramTotalBytes, 24 * kGiB);
    EXPECT_EQ(gpus[2].pciBusId, "0000:03:00.0"); // learnt from sysfs
    EXPECT_FALSE(gpus[0].amdgpu);
}

TEST(InventoryMerge, IdenticalCardsWithoutBusIdsAreNotGuessed) {
    std::vector<GpuInfo> gpus{vulkanGpu("RX 7600 (RADV)", 0x1002, 0x7480, std::nullopt),
                              vulkanGpu("RX 7600 (RADV)", 0x1002, 0x7480, std::nullopt)};
    const std::vector<std::size_t> placed =
        attachAmdgpuCards(gpus, {amdCard("card0", 0x7480, "0000:03:00.0", 8 * kGiB),
                                 amdCard("card1", 0x7480, "0000:07:00.0", 8 * kGiB)});
    ASSERT_EQ(gpus.size(), 4u); // both listed on their own, the Vulkan devices untouched
    EXPECT_EQ(placed, (std::vector<std::size_t>{2, 3}));
    EXPECT_FALSE(gpus[0].amdgpu);
    EXPECT_FALSE(gpus[1].amdgpu);
    EXPECT_EQ(gpus[2].source, "amdgpu-sysfs");
    EXPECT_EQ(gpus[2].type, GpuType::Unknown);
}

TEST(InventoryMerge, AmdgpuWithoutVulkanIsListedOnItsOwn) {
    std::vector<GpuInfo> gpus;
    attachAmdgpuCards(gpus, {amdCard("card1", 0x1586, "0000:c5:00.0", 32 * kGiB)});
    ASSERT_EQ(gpus.size(), 1u);
    EXPECT_EQ(gpus[0].source, "amdgpu-sysfs");
    EXPECT_EQ(gpus[0].driverName, "amdgpu");
    EXPECT_EQ(gpus[0].name, "amdgpu card1 (1002:1586)");
    EXPECT_TRUE(gpus[0].heaps.empty()); // no Vulkan heaps invented
    ASSERT_TRUE(gpus[0].amdgpu);
    EXPECT_EQ(gpus[0].amdgpu->vramTotalBytes, 32 * kGiB);
}

TEST(InventoryMerge, NvmlAttachesByNormalizedBusId) {
    std::vector<GpuInfo> gpus{vulkanGpu("NVIDIA GeForce RTX 3090", 0x10de, 0x2204, "0000:2b:00.0"),
                              vulkanGpu("NVIDIA GeForce RTX 3090", 0x10de, 0x2204, "0000:01:00.0")};
    const std::vector<std::size_t> placed = attachNvmlDevices(
        gpus, {nvmlDevice("NVIDIA GeForce RTX 3090", 0x2204, "00000000:01:00.0", 24 * kGiB),
               nvmlDevice("NVIDIA GeForce RTX 3090", 0x2204, "00000000:2B:00.0", 24 * kGiB)});
    EXPECT_EQ(placed, (std::vector<std::size_t>{1, 0}));
    EXPECT_EQ(gpus.size(), 2u);
    EXPECT_TRUE(gpus[0].nvml && gpus[1].nvml);
}

TEST(InventoryMerge, DxgiAttachesByUniquePciIds) {
    std::vector<GpuInfo> gpus{vulkanGpu("AMD Radeon(TM) 8060S Graphics", 0x1002, 0x1586, std::nullopt)};
    DxgiAdapter radeon;
    radeon.name = "AMD Radeon(TM) 8060S Graphics";
    radeon.vendorId = 0x1002;
    radeon.deviceId = 0x1586;
    radeon.memory.dedicatedVideoBytes = 32 * kGiB;
    radeon.memory.sharedSystemBytes = 16 * kGiB;
    DxgiAdapter basic;
    basic.name = "Microsoft Basic Render Driver";
    basic.vendorId = 0x1414;
    basic.deviceId = 0x8c;
    basic.software = true;
    const std::vector<std::size_t> placed = attachDxgiAdapters(gpus, {radeon, basic});
    EXPECT_EQ(placed, (std::vector<std::size_t>{0, 1}));
    ASSERT_TRUE(gpus[0].dxgi);
    EXPECT_EQ(gpus[0].dxgi->dedicatedVideoBytes, 32 * kGiB);
    ASSERT_EQ(gpus.size(), 2u);
    EXPECT_EQ(gpus[1].type, GpuType::Cpu);
    EXPECT_EQ(gpus[1].source, "dxgi");
}

} // namespace
} // namespace llamafit

// probeDevices: the real Vulkan source (lavapipe) joined with fixture sysfs/procfs trees and
// the fake NVML; and machines with sources missing, which must still give a usable inventory
// that says what is missing instead of guessing.

#include "core/common/units.h"
#include "core/system/devicememoryreader.h"
#include "core/system/deviceprobe.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

std::filesystem::path fixture(const std::string& machine) {
    return std::filesystem::path(LLAMAFIT_TEST_SYSFS_DIR) / machine;
}

DeviceProbeOptions fixtureOptions(const std::string& machine) {
    DeviceProbeOptions options;
    options.procDir = fixture(machine) / "proc";
    options.drmClassDir = fixture(machine) / "sys/class/drm";
    options.nvmlLibrary = LLAMAFIT_FAKE_NVML_PATH;
    return options;
}

const SourceStatus& source(const MachineInventory& inventory, const std::string& name) {
    const SourceStatus* status = findSource(inventory, name);
    EXPECT_NE(status, nullptr) << "source " << name << " not listed";
    static const SourceStatus kMissing{};
    return status != nullptr ? *status : kMissing;
}

TEST(DeviceProbe, JoinsEverySource) {
    const DeviceProbeResult probe = probeDevices(fixtureOptions("evo-x2-64g-32-32"));
    const MachineInventory& inventory = probe.inventory;
    for (const char* name : {"vulkan", "amdgpu-sysfs", "nvml", "proc-meminfo"}) {
        EXPECT_TRUE(source(inventory, name).available) << name << ": " << source(inventory, name).detail;
        EXPECT_FALSE(source(inventory, name).detail.empty()) << name;
    }
    EXPECT_EQ(findSource(inventory, "dxgi"), nullptr); // not a Linux source: not tried, not listed

    EXPECT_EQ(inventory.cpuName, "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S");
    EXPECT_EQ(inventory.logicalCpuCount, 32u);
    ASSERT_TRUE(inventory.hostMemory);
    EXPECT_EQ(inventory.hostMemory->memAvailableBytes, 19 * kGiB);

    // Vulkan devices first (lavapipe), then the amdgpu card no Vulkan driver here knows, then NVML.
    ASSERT_EQ(inventory.gpus.size(), probe.vulkan->devices().size() + 3);
    EXPECT_EQ(inventory.gpus.front().source, "vulkan");
    const auto amd = std::find_if(inventory.gpus.begin(), inventory.gpus.end(),
                                  [](const GpuInfo& gpu) { return gpu.source == "amdgpu-sysfs"; });
    ASSERT_NE(amd, inventory.gpus.end());
    ASSERT_TRUE(amd->amdgpu);
    EXPECT_EQ(amd->amdgpu->vramTotalBytes, 32 * kGiB);
    EXPECT_EQ(amd->pciBusId, "0000:c6:00.0");
    EXPECT_EQ(std::count_if(inventory.gpus.begin(), inventory.gpus.end(),
                            [](const GpuInfo& gpu) { return gpu.source == "nvml" && gpu.nvml; }),
              2);
    EXPECT_EQ(probe.amdgpuGpuIndex.size(), 1u);
    EXPECT_EQ(probe.nvmlGpuIndex.size(), 2u);
}

TEST(DeviceProbe, MissingSourcesAreReportedAndTheRestIsUsable) {
    DeviceProbeOptions options = fixtureOptions("old-kernel-raven-partial");
    options.vulkan = false;
    options.nvmlLibrary = "libllamafit-no-such-nvml.so.1";
    const MachineInventory inventory = probeMachine(options);

    EXPECT_FALSE(source(inventory, "vulkan").available);
    EXPECT_NE(source(inventory, "vulkan").detail.find("not probed"), std::string::npos);
    EXPECT_FALSE(source(inventory, "nvml").available);
    EXPECT_NE(source(inventory, "nvml").detail.find("nvml.not-found"), std::string::npos);
    // The kernel has no MemAvailable: host memory is unknown, not MemFree + Cached.
    EXPECT_FALSE(inventory.hostMemory);
    EXPECT_FALSE(source(inventory, "proc-meminfo").available);
    EXPECT_NE(source(inventory, "proc-meminfo").detail.find("meminfo.missing-field"), std::string::npos);

    // What is there is still used: the CPU and the amdgpu card, with its one missing file empty.
    EXPECT_EQ(inventory.cpuName, "AMD Ryzen 5 2500U with Radeon Vega Mobile Gfx");
    EXPECT_TRUE(source(inventory, "amdgpu-sysfs").available);
    ASSERT_EQ(inventory.gpus.size(), 1u);
    const GpuInfo& raven = inventory.gpus[0];
    EXPECT_EQ(raven.type, GpuType::Unknown); // sysfs does not say integrated; nothing is assumed
    ASSERT_TRUE(raven.amdgpu);
    EXPECT_EQ(raven.amdgpu->vramTotalBytes, 512 * kMiB);
    EXPECT_EQ(raven.amdgpu->visVramTotalBytes, std::nullopt);
    EXPECT_TRUE(raven.heaps.empty());
}

TEST(DeviceProbe, NothingFoundIsAnHonestEmptyInventory) {
    DeviceProbeOptions options;
    options.procDir = fixture("no-such-machine") / "proc";
    options.drmClassDir = fixture("no-such-machine") / "sys/class/drm";
    options.vulkan = false;
    options.nvmlLibrary.reset();
    const MachineInventory inventory = probeMachine(options);
    EXPECT_TRUE(inventory.gpus.empty());
    EXPECT_FALSE(inventory.hostMemory);
    ASSERT_EQ(inventory.sources.size(), 4u);
    for (const SourceStatus& status : inventory.sources) {
        EXPECT_FALSE(status.available) << status.name;
        EXPECT_FALSE(status.detail.empty()) << status.name;
    }
    EXPECT_NE(source(inventory, "amdgpu-sysfs").detail.find("amdgpu-sysfs.no-drm-class"), std::string::npos);
}

TEST(DeviceProbe, TheRealMachine) {
    // This machine as it is: whatever it has, host memory and lavapipe are always there.
    const MachineInventory inventory = probeMachine();
    ASSERT_TRUE(inventory.hostMemory) << source(inventory, "proc-meminfo").detail;
    EXPECT_GT(inventory.hostMemory->memTotalBytes, 0u);
    EXPECT_LE(inventory.hostMemory->memAvailableBytes, inventory.hostMemory->memTotalBytes);
    EXPECT_GT(inventory.logicalCpuCount, 0u);
    EXPECT_TRUE(std::any_of(inventory.gpus.begin(), inventory.gpus.end(), [](const GpuInfo& gpu) {
        return gpu.type == GpuType::Cpu && gpu.driverName == "llvmpipe";
    }));
}

TEST(DeviceMemoryReaders, OneSeriesPerSourceFigure) {
    const DeviceProbeResult probe = probeDevices(fixtureOptions("evo-x2-64g-32-32"));
    std::vector<std::unique_ptr<DeviceMemoryReader>> readers = makeDeviceMemoryReaders(probe);
    // amdgpu: VRAM and GTT; two NVML devices; lavapipe has no memory budget, so no series.
    ASSERT_EQ(readers.size(), 4u);
    EXPECT_NE(readers[0]->label().find("VRAM used (amdgpu sysfs)"), std::string::npos) << readers[0]->label();
    EXPECT_NE(readers[1]->label().find("GTT used (amdgpu sysfs)"), std::string::npos);
    EXPECT_NE(readers[2]->label().find("NVIDIA GeForce RTX 4060: used (NVML)"), std::string::npos);
    EXPECT_EQ(readers[0]->gpuIndex(), probe.amdgpuGpuIndex[0]);
    EXPECT_EQ(readers[2]->gpuIndex(), probe.nvmlGpuIndex[0]);

    const Result<std::uint64_t> vram = readers[0]->readUsedBytes();
    ASSERT_TRUE(vram);
    EXPECT_EQ(*vram, 29 * kGiB);
    const Result<std::uint64_t> gtt = readers[1]->readUsedBytes();
    ASSERT_TRUE(gtt);
    EXPECT_EQ(*gtt, 310 * kMiB);
    const Result<std::uint64_t> nvmlFirst = readers[2]->readUsedBytes();
    const Result<std::uint64_t> nvmlSecond = readers[2]->readUsedBytes();
    ASSERT_TRUE(nvmlFirst && nvmlSecond);
    EXPECT_GT(*nvmlSecond, *nvmlFirst);
}

TEST(DeviceMemoryReaders, UnreadableFileIsAnError) {
    std::unique_ptr<DeviceMemoryReader> reader =
        makeAmdgpuReader(fixture("no-such-machine"), AmdgpuPool::Vram, "gone", 0);
    const Result<std::uint64_t> used = reader->readUsedBytes();
    ASSERT_FALSE(used);
    EXPECT_EQ(used.error().code, "amdgpu-sysfs.unreadable");
}

} // namespace
} // namespace llamafit

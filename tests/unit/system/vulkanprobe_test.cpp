// VulkanProbe on a real Vulkan driver: Mesa's lavapipe (llvmpipe), which every test machine
// has through the mesa-vulkan-drivers package; ctest pins the loader to it with
// VK_ICD_FILENAMES (tests/unit/system/CMakeLists.txt).

#include "core/system/vulkanprobe.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

// The lavapipe device, or nullptr (the test then fails, naming the package).
const GpuInfo* findLavapipe(const VulkanProbe& probe) {
    const auto& devices = probe.devices();
    const auto it = std::find_if(devices.begin(), devices.end(), [](const GpuInfo& gpu) {
        return gpu.driverName == "llvmpipe" || gpu.name.find("llvmpipe") != std::string::npos;
    });
    return it == devices.end() ? nullptr : &*it;
}

TEST(VulkanProbe, FindsLavapipeWithTypeDriverAndHeaps) {
    const Result<std::shared_ptr<VulkanProbe>> probe = VulkanProbe::open();
    ASSERT_TRUE(probe) << probe.error().message << " (is mesa-vulkan-drivers installed?)";
    const GpuInfo* lavapipe = findLavapipe(**probe);
    ASSERT_NE(lavapipe, nullptr) << "no llvmpipe device: install mesa-vulkan-drivers";
    EXPECT_EQ(lavapipe->type, GpuType::Cpu);
    EXPECT_EQ(lavapipe->source, "vulkan");
    EXPECT_EQ(lavapipe->vendorId, 0x10005u);     // VK_VENDOR_ID_MESA
    EXPECT_EQ(lavapipe->driverName, "llvmpipe"); // VK_KHR_driver_properties, core since 1.2
    EXPECT_NE(lavapipe->driverInfo.find("Mesa"), std::string::npos) << lavapipe->driverInfo;
    EXPECT_FALSE(lavapipe->apiVersion.empty());
    EXPECT_EQ(lavapipe->apiVersion.substr(0, 2), "1.");
    ASSERT_FALSE(lavapipe->heaps.empty());
    for (const MemoryHeap& heap : lavapipe->heaps) {
        EXPECT_GT(heap.sizeBytes, 0u);
    }
    // lavapipe's one heap is device-local (host memory presented as a device heap).
    EXPECT_TRUE(std::any_of(lavapipe->heaps.begin(), lavapipe->heaps.end(),
                            [](const MemoryHeap& heap) { return heap.deviceLocal; }));
    EXPECT_FALSE((*probe)->instanceVersion().empty());
}

TEST(VulkanProbe, BudgetPresentExactlyWhenTheExtensionIs) {
    const Result<std::shared_ptr<VulkanProbe>> probe = VulkanProbe::open();
    ASSERT_TRUE(probe) << probe.error().message;
    ASSERT_FALSE((*probe)->devices().empty());
    for (std::size_t i = 0; i < (*probe)->devices().size(); ++i) {
        const GpuInfo& gpu = (*probe)->devices()[i];
        const Result<std::vector<MemoryHeap>> heaps = (*probe)->readHeaps(i);
        ASSERT_TRUE(heaps);
        ASSERT_EQ(heaps->size(), gpu.heaps.size()) << gpu.name;
        for (std::size_t h = 0; h < heaps->size(); ++h) {
            const MemoryHeap& heap = (*heaps)[h];
            EXPECT_EQ(heap.sizeBytes, gpu.heaps[h].sizeBytes);
            EXPECT_EQ(heap.deviceLocal, gpu.heaps[h].deviceLocal);
            // VK_EXT_memory_budget or nothing: no figure is made up without it.
            EXPECT_EQ(heap.budgetBytes.has_value(), gpu.memoryBudget) << gpu.name << " heap " << h;
            EXPECT_EQ(heap.usageBytes.has_value(), gpu.memoryBudget) << gpu.name << " heap " << h;
            if (heap.budgetBytes) {
                EXPECT_GT(*heap.budgetBytes, 0u);
            }
        }
    }
}

TEST(VulkanProbe, BadDeviceIndex) {
    const Result<std::shared_ptr<VulkanProbe>> probe = VulkanProbe::open();
    ASSERT_TRUE(probe) << probe.error().message;
    const Result<std::vector<MemoryHeap>> heaps = (*probe)->readHeaps((*probe)->devices().size());
    ASSERT_FALSE(heaps);
    EXPECT_EQ(heaps.error().code, "vulkan.bad-device-index");
}

TEST(VulkanProbe, VersionText) {
    EXPECT_EQ(vulkanVersionText((1u << 22) | (3u << 12) | 230u), "1.3.230");
    EXPECT_EQ(vulkanVersionText(0), "0.0.0");
}

} // namespace
} // namespace llamafit

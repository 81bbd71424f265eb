#pragma once
// VulkanProbe: every Vulkan physical device with its name, type, driver, API version and
// memory heaps; with VK_EXT_memory_budget, each heap's budget and this process's usage
// (llama.cpp's Vulkan backend reports free = budget - usage, and for an integrated GPU sums
// every heap: see /work/shared/reference/unified-memory.md section 4). Holds one VkInstance
// so the live sampler can re-read budgets without recreating it (creating an instance loads
// every ICD and takes tens of milliseconds). Used by deviceprobe and devicememoryreader.
// Thread: open() anywhere; readHeaps() may be called from any one thread at a time (physical
// device queries need no external synchronisation). Units: bytes.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace llamafit {

class VulkanProbe {
  public:
    // Creates a Vulkan 1.1 instance (1.0 with VK_KHR_get_physical_device_properties2 on old
    // loaders) and enumerates the devices. Errors: "vulkan.no-instance" (no loader or no
    // driver: the VkResult is named), "vulkan.enumerate-failed". Zero devices is not an error.
    static Result<std::shared_ptr<VulkanProbe>> open();

    ~VulkanProbe();
    VulkanProbe(const VulkanProbe&) = delete;
    VulkanProbe& operator=(const VulkanProbe&) = delete;

    // In vkEnumeratePhysicalDevices order (llama.cpp's Vulkan0, Vulkan1, ... follow it unless
    // GGML_VK_VISIBLE_DEVICES reorders them). source = "vulkan".
    const std::vector<GpuInfo>& devices() const;
    std::string instanceVersion() const; // "1.3.239": the loader's version

    // Device deviceIndex's heaps read now (budget and usage change as memory is allocated).
    // Error "vulkan.bad-device-index".
    Result<std::vector<MemoryHeap>> readHeaps(std::size_t deviceIndex) const;

  private:
    struct Impl;
    explicit VulkanProbe(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// "1.3.230" from a packed VK_MAKE_API_VERSION value (the variant bits are dropped).
std::string vulkanVersionText(std::uint32_t packedVersion);

} // namespace llamafit

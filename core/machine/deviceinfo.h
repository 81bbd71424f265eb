#pragma once
// MachineInventory: what device discovery found on this machine, as plain values.
// Filled by core/system/deviceprobe (Vulkan, amdgpu sysfs, /proc/meminfo, NVML, DXGI) and
// read by the memory-pool model (core/machine), `llamafit-cli devices` and the GUI.
// Every figure is in bytes (std::uint64_t). A figure a source could not give is an empty
// optional, and a source that could not be read is listed in `sources` with
// available == false: nothing here is guessed or filled with a default.
// Qt-free: the core may include it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// Vulkan's VkPhysicalDeviceType, plus Unknown for devices only a non-Vulkan source saw.
enum class GpuType { Integrated, Discrete, Cpu, Virtual, Other, Unknown };

// One VkMemoryHeap. Budget and usage come from VK_EXT_memory_budget and are empty
// without it; llama.cpp's Vulkan backend reports free = budget - usage per heap.
struct MemoryHeap {
    std::uint64_t sizeBytes = 0;
    bool deviceLocal = false; // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
    std::optional<std::uint64_t> budgetBytes;
    std::optional<std::uint64_t> usageBytes;
    bool operator==(const MemoryHeap&) const = default;
};

// Linux amdgpu sysfs, /sys/class/drm/cardN/device/mem_info_* (each file read on its own:
// a file that is missing or unreadable leaves its figure empty).
struct AmdgpuMemory {
    std::string card;                               // "card1"
    std::optional<std::uint64_t> vramTotalBytes;    // mem_info_vram_total: the BIOS carve-out on an APU
    std::optional<std::uint64_t> vramUsedBytes;     // mem_info_vram_used
    std::optional<std::uint64_t> visVramTotalBytes; // mem_info_vis_vram_total: CPU-visible part of VRAM
    std::optional<std::uint64_t>
        gttTotalBytes;                         // mem_info_gtt_total: GTT limit (max(3 GiB, RAM/2) by default)
    std::optional<std::uint64_t> gttUsedBytes; // mem_info_gtt_used
    bool operator==(const AmdgpuMemory&) const = default;
};

// NVIDIA NVML nvmlDeviceGetMemoryInfo.
struct NvmlMemory {
    std::uint64_t totalBytes = 0;
    std::uint64_t usedBytes = 0;
    std::uint64_t freeBytes = 0;
    bool operator==(const NvmlMemory&) const = default;
};

// Windows DXGI_ADAPTER_DESC1 (+ IDXGIAdapter3::QueryVideoMemoryInfo when present).
struct DxgiMemory {
    std::uint64_t dedicatedVideoBytes = 0; // the carve-out on an APU
    std::uint64_t dedicatedSystemBytes = 0;
    std::uint64_t sharedSystemBytes = 0;           // "shared GPU memory", about half of RAM
    std::optional<std::uint64_t> localBudgetBytes; // DXGI_MEMORY_SEGMENT_GROUP_LOCAL
    std::optional<std::uint64_t> localUsageBytes;
    bool operator==(const DxgiMemory&) const = default;
};

struct GpuInfo {
    std::string name; // "AMD Radeon 8060S Graphics (RADV GFX1151)", "llvmpipe (LLVM 15.0.6, 256 bits)"
    std::uint32_t vendorId =
        0; // PCI vendor id: 0x1002 AMD, 0x10de NVIDIA, 0x8086 Intel, 0x10005 Mesa (lavapipe)
    std::uint32_t deviceId = 0;
    GpuType type = GpuType::Unknown;
    std::string source;     // the source that found the device: "vulkan", "amdgpu-sysfs", "nvml", "dxgi"
    std::string driverName; // VK_KHR_driver_properties driverName ("radv", "llvmpipe"); empty when unknown
    std::string driverInfo; // driverInfo ("Mesa 22.3.6")
    std::string apiVersion; // Vulkan API version "1.3.230"; empty for non-Vulkan sources
    std::optional<std::string>
        pciBusId;                  // "0000:c5:00.0" when a source gives it (sysfs, NVML, VK_EXT_pci_bus_info)
    std::vector<MemoryHeap> heaps; // Vulkan memory heaps, in Vulkan's order
    bool memoryBudget = false;     // VK_EXT_memory_budget was enabled: heaps carry budget/usage
    // VkPhysicalDeviceLimits::maxStorageBufferRange and VkPhysicalDeviceMaintenance3Properties::
    // maxMemoryAllocationSize (Vulkan 1.1): what ggml-vulkan checks every op's tensors against.
    std::optional<std::uint64_t> maxStorageBufferRangeBytes;
    std::optional<std::uint64_t> maxMemoryAllocationBytes;
    std::optional<AmdgpuMemory> amdgpu; // matched amdgpu sysfs card
    std::optional<NvmlMemory> nvml;     // matched NVML device
    std::optional<DxgiMemory> dxgi;     // matched DXGI adapter
    bool operator==(const GpuInfo&) const = default;
};

// /proc/meminfo (Linux) or GlobalMemoryStatusEx (Windows).
struct HostMemory {
    std::uint64_t memTotalBytes = 0;
    std::uint64_t memAvailableBytes = 0; // what the OS can give new programs without swapping
    bool operator==(const HostMemory&) const = default;
};

// One discovery source and whether it answered. Missing sources are reported, not guessed.
struct SourceStatus {
    std::string name; // "vulkan", "amdgpu-sysfs", "proc-meminfo", "nvml", "dxgi"
    bool available = false;
    std::string detail; // why not, or what it found ("2 physical devices", "libnvidia-ml.so.1 not found")
    bool operator==(const SourceStatus&) const = default;
};

struct MachineInventory {
    std::string cpuName;                  // /proc/cpuinfo "model name"; empty when unknown
    std::uint32_t logicalCpuCount = 0;    // 0 when unknown
    std::optional<HostMemory> hostMemory; // empty when /proc/meminfo (or the Windows call) failed
    std::vector<GpuInfo> gpus;
    std::vector<SourceStatus> sources;
    bool operator==(const MachineInventory&) const = default;
};

// "integrated", "discrete", "cpu", "virtual", "other", "unknown" (CLI and JSON spelling).
inline std::string_view gpuTypeName(GpuType type) {
    switch (type) {
    case GpuType::Integrated:
        return "integrated";
    case GpuType::Discrete:
        return "discrete";
    case GpuType::Cpu:
        return "cpu";
    case GpuType::Virtual:
        return "virtual";
    case GpuType::Other:
        return "other";
    case GpuType::Unknown:
        break;
    }
    return "unknown";
}

// The named source's status, or nullptr when discovery did not try it (e.g. "dxgi" on Linux).
inline const SourceStatus* findSource(const MachineInventory& inventory, std::string_view name) {
    for (const SourceStatus& source : inventory.sources) {
        if (source.name == name) {
            return &source;
        }
    }
    return nullptr;
}

} // namespace llamafit

#pragma once
// Device discovery: runs every source this platform has (Vulkan, amdgpu sysfs and
// /proc/meminfo on Linux, NVML when its library loads, DXGI and GlobalMemoryStatusEx on
// Windows) and joins the answers into one MachineInventory. Each source's outcome is listed
// in inventory.sources; a source that fails leaves its figures empty and says why.
// Used by `llamafit-cli devices`, the GUI's device panel and (through makeDeviceMemoryReaders)
// the live sampler. Blocking (creating a Vulkan instance takes tens of milliseconds): the GUI
// calls it off the GUI thread. Units: bytes.

#include "core/machine/amdgpusysfs.h"
#include "core/machine/deviceinfo.h"
#include "core/system/nvmlprobe.h"
#include "core/system/vulkanprobe.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct DeviceProbeOptions {
    std::filesystem::path procDir = "/proc";              // tests: a fixture tree
    std::filesystem::path drmClassDir = "/sys/class/drm"; // tests: tests/data/sysfs/<machine>/class/drm
    bool vulkan = true;                                   // false: "vulkan" is listed as not probed
    std::optional<std::string> nvmlLibrary = NvmlProbe::defaultLibraryName(); // nullopt: not probed
};

// The inventory plus the open probes the live sampler reads from later.
struct DeviceProbeResult {
    MachineInventory inventory;
    std::shared_ptr<VulkanProbe> vulkan; // null when Vulkan was not available
    std::shared_ptr<NvmlProbe> nvml;     // null when NVML was not available
    std::vector<AmdgpuCard> amdgpuCards;
    std::vector<std::size_t> amdgpuGpuIndex; // amdgpuCards[i] is inventory.gpus[amdgpuGpuIndex[i]]
    std::vector<std::size_t> nvmlGpuIndex;   // nvml->devices()[i] is inventory.gpus[nvmlGpuIndex[i]]
};

DeviceProbeResult probeDevices(const DeviceProbeOptions& options = {});

inline MachineInventory probeMachine(const DeviceProbeOptions& options = {}) {
    return probeDevices(options).inventory;
}

} // namespace llamafit

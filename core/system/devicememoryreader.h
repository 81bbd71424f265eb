#pragma once
// DeviceMemoryReader: one live "device memory used" series for the sampler, read from the
// best source a GPU has: amdgpu sysfs (VRAM used and GTT used, two series: on an APU they are
// the carve-out and the shared pool), else NVML (used), else the Vulkan memory budget (the
// device-local heaps' size minus the budget this process is given: what other programs and
// the driver hold). A GPU with none of these gets no series, rather than a made-up one.
// Readers are created on any thread and then used only on the sampler's worker thread.
// Units: bytes.

#include "core/common/result.h"
#include "core/system/deviceprobe.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llamafit {

class DeviceMemoryReader {
  public:
    virtual ~DeviceMemoryReader() = default;
    // "AMD Radeon 8060S Graphics (RADV GFX1151): VRAM used (amdgpu sysfs)"
    virtual const std::string& label() const = 0;
    // Index of the GPU in the MachineInventory it was made from.
    virtual std::size_t gpuIndex() const = 0;
    virtual Result<std::uint64_t> readUsedBytes() = 0;
};

// amdgpu sysfs mem_info_vram_used or mem_info_gtt_used of one card directory.
enum class AmdgpuPool { Vram, Gtt };
std::unique_ptr<DeviceMemoryReader> makeAmdgpuReader(std::filesystem::path deviceDir, AmdgpuPool pool,
                                                     std::string label, std::size_t gpuIndex);

// The readers for every GPU of a probe, in inventory order.
std::vector<std::unique_ptr<DeviceMemoryReader>> makeDeviceMemoryReaders(const DeviceProbeResult& probe);

} // namespace llamafit

#pragma once
// Linux amdgpu memory figures from sysfs: for each DRM card driven by amdgpu,
// /sys/class/drm/cardN/device/mem_info_{vram_total,vram_used,vis_vram_total,gtt_total,gtt_used}
// (drivers/gpu/drm/amd/amdgpu/amdgpu_vram_mgr.c and amdgpu_gtt_mgr.c print them in bytes).
// On an APU, vram_total is the BIOS carve-out and gtt_total the GTT limit on top of it.
// A function of a directory tree (std::filesystem only, no Qt): the probe passes the real
// /sys/class/drm, tests pass fixture trees under tests/data/sysfs. Used by
// core/system/deviceprobe and core/system/devicesampler. Units: bytes.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct AmdgpuCard {
    AmdgpuMemory memory;                 // memory.card names the card ("card1")
    std::filesystem::path deviceDir;     // .../cardN/device, re-read by the live sampler
    std::uint32_t vendorId = 0;          // device/vendor, 0x1002
    std::uint32_t deviceId = 0;          // device/device, e.g. 0x1586 (Strix Halo)
    std::optional<std::string> pciBusId; // PCI_SLOT_NAME of device/uevent, "0000:c5:00.0"
    bool operator==(const AmdgpuCard&) const = default;
};

// A sysfs number: decimal ("536870912\n") or hex with 0x ("0x1002\n"); nullopt otherwise.
std::optional<std::uint64_t> parseSysfsNumber(std::string_view text);

// The five mem_info_* figures of one card's device directory; a missing or unreadable file
// leaves its figure empty (older kernels have no mem_info_vis_vram_total, for example).
AmdgpuMemory readAmdgpuMemory(const std::filesystem::path& deviceDir, std::string card);

// Every "cardN" under drmClassDir (connectors such as card1-DP-1 are skipped) whose device is
// driven by amdgpu (DRIVER=amdgpu in device/uevent, or a device/mem_info_vram_total file),
// ordered by N. An empty list is a valid answer (no amdgpu card). Error
// "amdgpu-sysfs.no-drm-class" when drmClassDir is not a readable directory.
Result<std::vector<AmdgpuCard>> readAmdgpuCards(const std::filesystem::path& drmClassDir);

} // namespace llamafit

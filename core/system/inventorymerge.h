#pragma once
// Joins what the separate discovery sources saw into one GpuInfo per physical GPU: an amdgpu
// sysfs card, an NVML device or a DXGI adapter is attached to the Vulkan device with the same
// PCI bus id, or else to the only Vulkan device with the same PCI vendor and device id. A
// device no Vulkan driver listed becomes a GpuInfo of its own (type Unknown unless the source
// says), so a machine without a Vulkan driver still shows its GPU memory. Ambiguous matches
// are not guessed: the device is listed on its own.
// Pure (no I/O, no Qt); used by deviceprobe and tested with fixture data. Units: bytes.

#include "core/machine/amdgpusysfs.h"
#include "core/machine/deviceinfo.h"
#include "core/system/dxgiprobe.h"
#include "core/system/nvmlprobe.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// "00000000:01:00.0" (NVML), "0000:C5:00.0", "c5:00.0" -> "0000:c5:00.0"; nullopt if malformed.
std::optional<std::string> normalizePciBusId(std::string_view text);

// Each returns, per input device, the index in `gpus` it was attached to or appended at (the
// live sampler uses it to find the reader for a GPU).
std::vector<std::size_t> attachAmdgpuCards(std::vector<GpuInfo>& gpus, const std::vector<AmdgpuCard>& cards);
std::vector<std::size_t> attachNvmlDevices(std::vector<GpuInfo>& gpus,
                                           const std::vector<NvmlDevice>& devices);
std::vector<std::size_t> attachDxgiAdapters(std::vector<GpuInfo>& gpus,
                                            const std::vector<DxgiAdapter>& adapters);

} // namespace llamafit

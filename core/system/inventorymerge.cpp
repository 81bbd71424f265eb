// Matching discovery sources to Vulkan devices (see inventorymerge.h).

#include "core/system/inventorymerge.h"

#include <charconv>
#include <cstdio>

namespace llamafit {

namespace {

constexpr std::uint32_t kVendorAmd = 0x1002;
constexpr std::uint32_t kVendorNvidia = 0x10de;

std::optional<unsigned> parseHex(std::string_view text) {
    unsigned value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

// Index of the GPU this device belongs to, or nullopt. `taken` says a GPU already has a device
// of this source attached (two NVML devices must not land on one Vulkan device).
template <typename Taken>
std::optional<std::size_t> findGpu(const std::vector<GpuInfo>& gpus,
                                   const std::optional<std::string>& pciBusId, std::uint32_t vendorId,
                                   std::uint32_t deviceId, Taken taken) {
    if (const std::optional<std::string> wanted = pciBusId ? normalizePciBusId(*pciBusId) : std::nullopt) {
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            if (gpus[i].pciBusId && normalizePciBusId(*gpus[i].pciBusId) == wanted && !taken(gpus[i])) {
                return i;
            }
        }
    }
    // No bus id on one side: fall back to the PCI ids, but only when exactly one candidate has
    // them and none of the candidates carries a different bus id (that would be another card).
    std::optional<std::size_t> match;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        const GpuInfo& gpu = gpus[i];
        if (gpu.vendorId != vendorId || gpu.deviceId != deviceId || deviceId == 0 || taken(gpu)) {
            continue;
        }
        if (pciBusId && gpu.pciBusId) {
            continue; // both known and different: not this card
        }
        if (match) {
            return std::nullopt; // two identical cards without bus ids: do not guess
        }
        match = i;
    }
    return match;
}

std::string idText(std::uint32_t vendorId, std::uint32_t deviceId) {
    char text[24];
    std::snprintf(text, sizeof text, "%04x:%04x", vendorId, deviceId);
    return text;
}

} // namespace

std::optional<std::string> normalizePciBusId(std::string_view text) {
    // [domain:]bus:device.function, hex.
    const std::size_t dot = text.rfind('.');
    const std::size_t lastColon = text.rfind(':');
    if (dot == std::string_view::npos || lastColon == std::string_view::npos || lastColon > dot) {
        return std::nullopt;
    }
    const std::size_t firstColon = text.rfind(':', lastColon == 0 ? 0 : lastColon - 1);
    const bool hasDomain = firstColon != std::string_view::npos && firstColon < lastColon;
    const std::optional<unsigned> domain = hasDomain ? parseHex(text.substr(0, firstColon)) : 0u;
    const std::size_t busStart = hasDomain ? firstColon + 1 : 0;
    const std::optional<unsigned> bus = parseHex(text.substr(busStart, lastColon - busStart));
    const std::optional<unsigned> device = parseHex(text.substr(lastColon + 1, dot - lastColon - 1));
    const std::optional<unsigned> function = parseHex(text.substr(dot + 1));
    if (!domain || !bus || !device || !function || *domain > 0xffff || *bus > 0xff || *device > 0x1f ||
        *function > 7) {
        return std::nullopt;
    }
    char normalized[16];
    std::snprintf(normalized, sizeof normalized, "%04x:%02x:%02x.%x", *domain, *bus, *device, *function);
    return std::string(normalized);
}

std::vector<std::size_t> attachAmdgpuCards(std::vector<GpuInfo>& gpus, const std::vector<AmdgpuCard>& cards) {
    std::vector<std::size_t> placed;
    for (const AmdgpuCard& card : cards) {
        const std::uint32_t vendorId = card.vendorId != 0 ? card.vendorId : kVendorAmd;
        const std::optional<std::size_t> index =
            findGpu(gpus, card.pciBusId, vendorId, card.deviceId,
                    [](const GpuInfo& gpu) { return gpu.amdgpu.has_value(); });
        if (index) {
            gpus[*index].amdgpu = card.memory;
            if (!gpus[*index].pciBusId && card.pciBusId) {
                gpus[*index].pciBusId = normalizePciBusId(*card.pciBusId);
            }
            placed.push_back(*index);
            continue;
        }
        placed.push_back(gpus.size());
        GpuInfo gpu;
        gpu.name = "amdgpu " + card.memory.card + " (" + idText(vendorId, card.deviceId) + ")";
        gpu.vendorId = vendorId;
        gpu.deviceId = card.deviceId;
        gpu.source = "amdgpu-sysfs";
        gpu.driverName = "amdgpu";
        gpu.pciBusId = card.pciBusId ? normalizePciBusId(*card.pciBusId) : std::nullopt;
        gpu.amdgpu = card.memory;
        gpus.push_back(std::move(gpu));
    }
    return placed;
}

std::vector<std::size_t> attachNvmlDevices(std::vector<GpuInfo>& gpus,
                                           const std::vector<NvmlDevice>& devices) {
    std::vector<std::size_t> placed;
    for (const NvmlDevice& device : devices) {
        const std::uint32_t vendorId = device.vendorId != 0 ? device.vendorId : kVendorNvidia;
        const std::optional<std::size_t> index =
            findGpu(gpus, device.pciBusId, vendorId, device.deviceId,
                    [](const GpuInfo& gpu) { return gpu.nvml.has_value(); });
        if (index) {
            gpus[*index].nvml = device.memory;
            placed.push_back(*index);
            continue;
        }
        placed.push_back(gpus.size());
        GpuInfo gpu;
        gpu.name = device.name;
        gpu.vendorId = vendorId;
        gpu.deviceId = device.deviceId;
        gpu.source = "nvml";
        gpu.pciBusId = device.pciBusId ? normalizePciBusId(*device.pciBusId) : std::nullopt;
        gpu.nvml = device.memory;
        gpus.push_back(std::move(gpu));
    }
    return placed;
}

std::vector<std::size_t> attachDxgiAdapters(std::vector<GpuInfo>& gpus,
                                            const std::vector<DxgiAdapter>& adapters) {
    std::vector<std::size_t> placed;
    for (const DxgiAdapter& adapter : adapters) {
        const std::optional<std::size_t> index =
            findGpu(gpus, std::nullopt, adapter.vendorId, adapter.deviceId,
                    [](const GpuInfo& gpu) { return gpu.dxgi.has_value(); });
        if (index) {
            gpus[*index].dxgi = adapter.memory;
            placed.push_back(*index);
            continue;
        }
        placed.push_back(gpus.size());
        GpuInfo gpu;
        gpu.name = adapter.name;
        gpu.vendorId = adapter.vendorId;
        gpu.deviceId = adapter.deviceId;
        gpu.type = adapter.software ? GpuType::Cpu : GpuType::Unknown;
        gpu.source = "dxgi";
        gpu.dxgi = adapter.memory;
        gpus.push_back(std::move(gpu));
    }
    return placed;
}

} // namespace llamafit

// Runs the discovery sources and joins them (see deviceprobe.h). Vulkan devices come first,
// in Vulkan's order, because llama.cpp names its Vulkan buffers Vulkan0, Vulkan1, ... in
// that order; the other sources attach to them (core/system/inventorymerge).

#include "core/system/deviceprobe.h"

#include "core/system/hostmemory.h"
#include "core/system/inventorymerge.h"

#ifdef _WIN32
#include "core/system/dxgiprobe.h"
#endif

namespace llamafit {

namespace {

std::string failure(const Error& error) {
    return error.message + " [" + error.code + "]";
}

std::string plural(std::size_t count, const char* noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

void probeVulkan(DeviceProbeResult& result, const DeviceProbeOptions& options) {
    SourceStatus status{"vulkan", false, {}};
    if (!options.vulkan) {
        status.detail = "not probed (disabled)";
    } else if (Result<std::shared_ptr<VulkanProbe>> vulkan = VulkanProbe::open(); !vulkan) {
        status.detail = failure(vulkan.error());
    } else if ((*vulkan)->devices().empty()) {
        status.detail = "Vulkan loader " + (*vulkan)->instanceVersion() + " lists no physical device";
    } else {
        result.vulkan = *vulkan;
        result.inventory.gpus = result.vulkan->devices();
        status.available = true;
        status.detail = plural(result.vulkan->devices().size(), "physical device") + ", Vulkan loader " +
                        result.vulkan->instanceVersion();
    }
    result.inventory.sources.push_back(std::move(status));
}

void probeNvml(DeviceProbeResult& result, const DeviceProbeOptions& options) {
    SourceStatus status{"nvml", false, {}};
    if (!options.nvmlLibrary) {
        status.detail = "not probed (disabled)";
    } else if (Result<std::shared_ptr<NvmlProbe>> nvml = NvmlProbe::open(*options.nvmlLibrary); !nvml) {
        status.detail = failure(nvml.error());
    } else {
        result.nvml = *nvml;
        result.nvmlGpuIndex = attachNvmlDevices(result.inventory.gpus, result.nvml->devices());
        status.available = true;
        status.detail =
            plural(result.nvml->devices().size(), "device") +
            (result.nvml->driverVersion().empty() ? "" : ", driver " + result.nvml->driverVersion());
    }
    result.inventory.sources.push_back(std::move(status));
}

void probeHost(DeviceProbeResult& result, const DeviceProbeOptions& options) {
    const CpuInfo cpu = readCpuInfo(options.procDir);
    result.inventory.cpuName = cpu.modelName;
    result.inventory.logicalCpuCount = cpu.logicalCpus;
    SourceStatus status{hostMemorySourceName(), false, {}};
    if (Result<HostMemory> host = readHostMemory(options.procDir); !host) {
        status.detail = failure(host.error());
    } else {
        result.inventory.hostMemory = *host;
        status.available = true;
        status.detail = "MemTotal and MemAvailable read";
    }
    result.inventory.sources.push_back(std::move(status));
}

#ifdef _WIN32

void probePlatform(DeviceProbeResult& result, const DeviceProbeOptions&) {
    SourceStatus status{"dxgi", false, {}};
    if (Result<std::vector<DxgiAdapter>> adapters = probeDxgiAdapters(); !adapters) {
        status.detail = failure(adapters.error());
    } else {
        attachDxgiAdapters(result.inventory.gpus, *adapters);
        status.available = true;
        status.detail = plural(adapters->size(), "adapter");
    }
    result.inventory.sources.push_back(std::move(status));
}

#else

void probePlatform(DeviceProbeResult& result, const DeviceProbeOptions& options) {
    SourceStatus status{"amdgpu-sysfs", false, {}};
    if (Result<std::vector<AmdgpuCard>> cards = readAmdgpuCards(options.drmClassDir); !cards) {
        status.detail = failure(cards.error());
    } else if (cards->empty()) {
        status.detail = "no amdgpu card under " + options.drmClassDir.string();
    } else {
        result.amdgpuCards = std::move(*cards);
        result.amdgpuGpuIndex = attachAmdgpuCards(result.inventory.gpus, result.amdgpuCards);
        status.available = true;
        status.detail = plural(result.amdgpuCards.size(), "amdgpu card");
    }
    result.inventory.sources.push_back(std::move(status));
}

#endif

} // namespace

DeviceProbeResult probeDevices(const DeviceProbeOptions& options) {
    DeviceProbeResult result;
    probeVulkan(result, options);
    probePlatform(result, options);
    probeNvml(result, options);
    probeHost(result, options);
    return result;
}

} // namespace llamafit

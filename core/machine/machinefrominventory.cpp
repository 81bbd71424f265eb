// Discovered inventory -> memory pools; see machinefrominventory.h.
#include "core/machine/machinefrominventory.h"

#include "core/common/units.h"
#include "core/machine/bandwidth.h"
#include "core/machine/carveoutchoices.h"

#include <algorithm>
#include <numeric>

namespace llamafit {

namespace {

constexpr std::uint32_t kNvidiaVendor = 0x10de;
// Below this a carve-out is the "minimal" Linux set-up whose GPU works from GTT
// (lhl/strix-halo-testing: BIOS GPU memory at the minimum, GTT raised with ttm.pages_limit).
constexpr std::uint64_t kMinimalCarveOutBytes = 2 * kGiB;
constexpr const char* kBandwidthUnknownNote =
    "memory bandwidth unknown: choose a profile for the speed estimate";

bool usable(const GpuInfo& gpu) {
    return gpu.type != GpuType::Cpu;
}

std::uint64_t heapSum(const GpuInfo& gpu, bool deviceLocal) {
    return std::accumulate(gpu.heaps.begin(), gpu.heaps.end(), std::uint64_t{0},
                           [&](std::uint64_t sum, const MemoryHeap& heap) {
                               return heap.deviceLocal == deviceLocal ? sum + heap.sizeBytes : sum;
                           });
}

// The limits ggml-vulkan checks ops against, when the GPU runs on the Vulkan backend (CUDA and
// ROCm have no such limit).
DeviceLimits vulkanLimits(const GpuInfo& gpu, Backend backend) {
    if (backend != Backend::Vulkan) {
        return {};
    }
    return DeviceLimits{gpu.maxStorageBufferRangeBytes, gpu.maxMemoryAllocationBytes};
}

// What ggml-vulkan will print as free: budget - usage summed over every heap of an integrated
// GPU, over the device-local heaps of a discrete one (ggml-vulkan.cpp ggml_backend_vk_get_device_memory).
std::optional<std::uint64_t> vulkanFree(const GpuInfo& gpu, bool integrated) {
    if (!gpu.memoryBudget) {
        return std::nullopt;
    }
    std::uint64_t free = 0;
    for (const MemoryHeap& heap : gpu.heaps) {
        if ((integrated || heap.deviceLocal) && heap.budgetBytes && heap.usageBytes) {
            free += *heap.budgetBytes > *heap.usageBytes ? *heap.budgetBytes - *heap.usageBytes : 0;
        }
    }
    return free;
}

OsKind osOf(const MachineInventory& inventory) {
    const SourceStatus* dxgi = findSource(inventory, "dxgi");
    if (dxgi != nullptr && dxgi->available) {
        return OsKind::Windows;
    }
    if (findSource(inventory, "proc-meminfo") != nullptr ||
        findSource(inventory, "amdgpu-sysfs") != nullptr) {
        return OsKind::Linux;
    }
    return OsKind::Unknown;
}

std::string gpuName(Backend backend, int index) {
    return (backend == Backend::Cuda ? "CUDA" : "Vulkan") + std::to_string(index);
}

void addHostPool(Machine& machine, const MachineInventory& inventory) {
    MemoryPool host{"System RAM", PoolKind::HostRam, 0, false, 0, std::nullopt};
    if (inventory.hostMemory) {
        host.capacityBytes = inventory.hostMemory->memTotalBytes;
        host.capacityKnown = true;
        // Whatever is not available now is the OS's and other programs' (MemAvailable).
        host.reservedByOsBytes =
            inventory.hostMemory->memTotalBytes -
            std::min(inventory.hostMemory->memTotalBytes, inventory.hostMemory->memAvailableBytes);
    } else {
        machine.notes.push_back(
            "system RAM size unknown (no /proc/meminfo or Windows memory status): the host "
            "side is not checked");
    }
    machine.hostPoolIndex = machine.pools.size();
    machine.pools.push_back(host);
}

void addDiscrete(Machine& machine, const GpuInfo& gpu, int backendIndex) {
    const Backend backend = gpu.vendorId == kNvidiaVendor ? Backend::Cuda : Backend::Vulkan;
    MemoryPool pool{"VRAM (" + gpu.name + ")", PoolKind::DiscreteVram, 0, true, 0, std::nullopt};
    if (gpu.nvml) {
        pool.capacityBytes = gpu.nvml->totalBytes;
        pool.reservedByOsBytes = gpu.nvml->usedBytes;
    } else if (gpu.amdgpu && gpu.amdgpu->vramTotalBytes) {
        pool.capacityBytes = *gpu.amdgpu->vramTotalBytes;
        pool.reservedByOsBytes = gpu.amdgpu->vramUsedBytes.value_or(0);
    } else if (gpu.dxgi) {
        pool.capacityBytes = gpu.dxgi->dedicatedVideoBytes;
        pool.reservedByOsBytes = gpu.dxgi->localUsageBytes.value_or(0);
    } else if (heapSum(gpu, true) > 0) {
        pool.capacityBytes = heapSum(gpu, true);
        for (const MemoryHeap& heap : gpu.heaps) {
            pool.reservedByOsBytes += heap.deviceLocal ? heap.usageBytes.value_or(0) : 0;
        }
    } else {
        pool.capacityKnown = false;
        machine.notes.push_back(gpu.name + ": no source gave its VRAM size");
    }
    machine.gpus.push_back(MachineGpu{gpuName(backend, backendIndex), gpu.name, backend, false,
                                      machine.pools.size(), vulkanLimits(gpu, backend)});
    machine.pools.push_back(pool);
    if (!machine.observedBackendFreeBytes) {
        machine.observedBackendFreeBytes = vulkanFree(gpu, false);
    }
}

void addIntegrated(Machine& machine, const MachineInventory& inventory, const GpuInfo& gpu) {
    std::optional<std::uint64_t> carveOut;
    std::optional<std::uint64_t> carveUsed;
    std::optional<std::uint64_t> shared;
    if (gpu.amdgpu) {
        carveOut = gpu.amdgpu->vramTotalBytes;
        carveUsed = gpu.amdgpu->vramUsedBytes;
        shared = gpu.amdgpu->gttTotalBytes;
    }
    if (!carveOut && gpu.dxgi) {
        carveOut = gpu.dxgi->dedicatedVideoBytes;
        carveUsed = gpu.dxgi->localUsageBytes;
        shared = gpu.dxgi->sharedSystemBytes;
    }
    if (!carveOut && heapSum(gpu, true) > 0) {
        carveOut = heapSum(gpu, true);
    }
    if (!shared && heapSum(gpu, false) > 0) {
        shared = heapSum(gpu, false);
    }
    const std::size_t carveIndex = machine.pools.size();
    machine.pools.push_back(MemoryPool{"BIOS carve-out (dedicated VRAM)", PoolKind::ApuCarveout,
                                       carveOut.value_or(0), carveOut.has_value(), carveUsed.value_or(0),
                                       std::nullopt});
    if (!carveOut) {
        machine.notes.push_back(gpu.name + ": carve-out size unknown (no amdgpu sysfs, DXGI or Vulkan heap)");
    }
    addHostPool(machine, inventory);
    const std::size_t sharedIndex = machine.pools.size();
    const OsKind os = machine.os;
    std::uint64_t sharedBytes = shared.value_or(0);
    if (!shared && inventory.hostMemory) {
        sharedBytes = sharedWindowBytes(os, inventory.hostMemory->memTotalBytes, std::nullopt);
        machine.notes.push_back("shared/GTT size not reported: the driver default (" +
                                std::string(os == OsKind::Linux ? "max(3 GiB, RAM/2)" : "RAM/2") +
                                ") is shown");
    }
    machine.pools.push_back(MemoryPool{
        os == OsKind::Linux ? "GTT (system RAM the GPU can map)" : "Shared GPU memory (system RAM)",
        PoolKind::ApuShared, sharedBytes, shared.has_value() || inventory.hostMemory.has_value(), 0,
        machine.hostPoolIndex});
    const bool viaShared = !carveOut || *carveOut < kMinimalCarveOutBytes;
    machine.gpus.push_back(MachineGpu{"Vulkan0", gpu.name, Backend::Vulkan, true,
                                      viaShared ? sharedIndex : carveIndex,
                                      vulkanLimits(gpu, Backend::Vulkan)});
    machine.observedBackendFreeBytes = vulkanFree(gpu, true);
    if (carveOut && inventory.hostMemory) {
        const std::uint64_t physical = *carveOut + inventory.hostMemory->memTotalBytes;
        // The BIOS lists are per installed size; MemTotal is a little under what is soldered.
        const std::uint64_t installed = padTo(physical, 8 * kGiB);
        const ApuFamily family = apuFamilyFromName(inventory.cpuName + " " + gpu.name);
        CarveOutChoices choices = knownCarveOutChoices(family, installed);
        machine.biosSplit = BiosSplit{physical, *carveOut, choices.bytes, choices.source};
        if (family == ApuFamily::StrixHalo) {
            const std::optional<KnownBandwidth> bandwidth = findKnownBandwidth("strix-halo");
            machine.bandwidthBytesPerSecond = bandwidth->bytesPerSecond;
            machine.bandwidthSource = std::string(bandwidth->source);
        }
    }
}

} // namespace

std::vector<std::optional<std::size_t>> machineGpuIndices(const MachineInventory& inventory) {
    // The same choice machineFromInventory() makes: the first integrated GPU alone when there is
    // no discrete one, else every usable non-integrated GPU in inventory order.
    std::vector<std::optional<std::size_t>> indices(inventory.gpus.size());
    const bool hasDiscrete =
        std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                    [](const GpuInfo& gpu) { return usable(gpu) && gpu.type != GpuType::Integrated; });
    std::size_t next = 0;
    for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
        const GpuInfo& gpu = inventory.gpus[i];
        if (!usable(gpu)) {
            continue;
        }
        if (hasDiscrete ? gpu.type != GpuType::Integrated : (gpu.type == GpuType::Integrated && next == 0)) {
            indices[i] = next++;
        }
    }
    return indices;
}

bool applyMeasuredBandwidth(Machine& machine, std::uint64_t bytesPerSecond, const std::string& method) {
    if (bytesPerSecond == 0 || machine.bandwidthBytesPerSecond) {
        return false;
    }
    const bool cpuOnly = machine.gpus.empty();
    if (!cpuOnly && !isApu(machine)) {
        return false;
    }
    machine.bandwidthBytesPerSecond = bytesPerSecond;
    machine.bandwidthSource = "measured on this machine by the CPU (" + method + ")" +
                              (cpuOnly ? "" : "; the iGPU usually reads the same memory faster");
    const auto unknown = std::find(machine.notes.begin(), machine.notes.end(), kBandwidthUnknownNote);
    if (unknown != machine.notes.end()) {
        machine.notes.erase(unknown);
    }
    return true;
}

bool inventoryHasGpu(const MachineInventory& inventory) {
    return std::any_of(inventory.gpus.begin(), inventory.gpus.end(), usable);
}

Machine machineFromInventory(const MachineInventory& inventory) {
    Machine machine;
    machine.id = "detected";
    machine.cpuName = inventory.cpuName;
    machine.name =
        "This machine" + (inventory.cpuName.empty() ? std::string() : " (" + inventory.cpuName + ")");
    machine.os = osOf(inventory);
    for (const SourceStatus& source : inventory.sources) {
        const std::string line = source.name + ": " + (source.available ? "" : "missing, ") + source.detail;
        (source.available ? machine.sources : machine.notes).push_back(line);
    }

    const GpuInfo* integrated = nullptr;
    for (const GpuInfo& gpu : inventory.gpus) {
        if (usable(gpu) && gpu.type == GpuType::Integrated && integrated == nullptr) {
            integrated = &gpu;
        }
    }
    const bool hasDiscrete =
        std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                    [](const GpuInfo& gpu) { return usable(gpu) && gpu.type != GpuType::Integrated; });
    // llama.cpp src/llama.cpp llama_model_load_from_file_impl: "add integrated GPUs only if no
    // discrete GPUs were found", so the APU model applies only to iGPU-only machines.
    if (integrated != nullptr && !hasDiscrete) {
        addIntegrated(machine, inventory, *integrated);
    } else {
        addHostPool(machine, inventory);
        int cuda = 0;
        int vulkan = 0;
        for (const GpuInfo& gpu : inventory.gpus) {
            if (usable(gpu) && gpu.type != GpuType::Integrated) {
                addDiscrete(machine, gpu, gpu.vendorId == kNvidiaVendor ? cuda++ : vulkan++);
            }
        }
    }
    for (const GpuInfo& gpu : inventory.gpus) {
        if (!usable(gpu)) {
            machine.notes.push_back(gpu.name + ": a CPU-type Vulkan device, not used as a GPU");
        }
    }
    if (!machine.bandwidthBytesPerSecond) {
        machine.notes.push_back(kBandwidthUnknownNote);
    }
    return machine;
}

} // namespace llamafit

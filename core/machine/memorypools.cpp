// Machine pools: the APU split, the driver's shared window, and the names used by profiles.
#include "core/machine/memorypools.h"

#include "core/common/units.h"

#include <algorithm>
#include <array>
#include <utility>

namespace llamafit {

namespace {

constexpr std::array kPoolKindNames{
    std::pair{PoolKind::DiscreteVram, std::string_view("discrete-vram")},
    std::pair{PoolKind::ApuCarveout, std::string_view("apu-carve-out")},
    std::pair{PoolKind::HostRam, std::string_view("host-ram")},
    std::pair{PoolKind::ApuShared, std::string_view("apu-shared")},
    std::pair{PoolKind::RpcHost, std::string_view("rpc-host")},
};

constexpr std::array kOsNames{
    std::pair{OsKind::Linux, std::string_view("linux")},
    std::pair{OsKind::Windows, std::string_view("windows")},
    std::pair{OsKind::MacOs, std::string_view("macos")},
    std::pair{OsKind::Unknown, std::string_view("unknown")},
};

constexpr std::array kBackendNames{
    std::pair{Backend::Cpu, std::string_view("cpu")},
    std::pair{Backend::Cuda, std::string_view("cuda")},
    std::pair{Backend::Vulkan, std::string_view("vulkan")},
    std::pair{Backend::Metal, std::string_view("metal")},
    std::pair{Backend::Rocm, std::string_view("rocm")},
    std::pair{Backend::Rpc, std::string_view("rpc")},
    std::pair{Backend::Other, std::string_view("other")},
};

template <typename Enum, std::size_t N>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
    for (const auto& [entry, name] : table) {
        if (entry == value) {
            return name;
        }
    }
    return table.back().second;
}

template <typename Enum, std::size_t N>
std::optional<Enum> valueOf(const std::array<std::pair<Enum, std::string_view>, N>& table,
                            std::string_view name) {
    for (const auto& [entry, spelled] : table) {
        if (spelled == name) {
            return entry;
        }
    }
    return std::nullopt;
}

std::string sharedPoolName(OsKind os) {
    return os == OsKind::Linux ? "GTT (system RAM the GPU can map)" : "Shared GPU memory (system RAM)";
}

std::optional<std::size_t> poolIndex(const Machine& machine, PoolKind kind) {
    for (std::size_t i = 0; i < machine.pools.size(); ++i) {
        if (machine.pools[i].kind == kind) {
            return i;
        }
    }
    return std::nullopt;
}

} // namespace

std::uint64_t sharedWindowBytes(OsKind os, std::uint64_t systemRamBytes,
                                std::optional<std::uint64_t> gttLimitBytes) {
    if (os == OsKind::Linux) {
        // drm/amdgpu amdgpu_ttm.c (2022, "Adjust logic around GTT size (v3)"): GTT defaults to
        // max(3 GiB, RAM/2); ttm.pages_limit / amdgpu.gttsize override it. Newer kernels cap it
        // at the RAM the OS sees ("cap GTT size to physical RAM on APUs", 2026).
        const std::uint64_t gtt =
            gttLimitBytes.value_or(std::max<std::uint64_t>(3 * kGiB, systemRamBytes / 2));
        return std::min(gtt, systemRamBytes);
    }
    // Windows WDDM gives an iGPU "shared GPU memory" of half the RAM the OS sees (observed: 16238
    // MiB RAM -> 8119 MiB Vulkan heap on a UHD 620; LM Studio #922 31.69 GB RAM + 15.84 GB shared).
    return systemRamBytes / 2;
}

Machine makeApuMachine(const ApuConfig& config) {
    Machine machine;
    machine.id = config.id;
    machine.name = config.name;
    machine.os = config.os;
    machine.cpuName = config.cpuName;
    machine.gttLimitBytes = config.gttLimitBytes;
    const std::uint64_t systemBytes =
        config.physicalBytes > config.carveOutBytes ? config.physicalBytes - config.carveOutBytes : 0;
    machine.pools.push_back(MemoryPool{"BIOS carve-out (dedicated VRAM)", PoolKind::ApuCarveout,
                                       config.carveOutBytes, true, config.desktopVramBytes, std::nullopt});
    machine.pools.push_back(
        MemoryPool{"System RAM", PoolKind::HostRam, systemBytes, true, config.osUseBytes, std::nullopt});
    machine.pools.push_back(MemoryPool{sharedPoolName(config.os), PoolKind::ApuShared,
                                       sharedWindowBytes(config.os, systemBytes, config.gttLimitBytes), true,
                                       0, std::size_t{1}});
    machine.hostPoolIndex = 1;
    machine.gpus.push_back(MachineGpu{config.backend == Backend::Cuda   ? "CUDA0"
                                      : config.backend == Backend::Rocm ? "ROCm0"
                                                                        : "Vulkan0",
                                      config.gpuModel, config.backend, true,
                                      config.gpuUsesSharedMemory ? std::size_t{2} : std::size_t{0},
                                      config.gpuLimits});
    machine.biosSplit = BiosSplit{config.physicalBytes, config.carveOutBytes, config.offeredCarveOutBytes,
                                  config.offeredSource};
    return machine;
}

std::optional<Machine> withCarveOut(const Machine& machine, std::uint64_t carveOutBytes) {
    if (!machine.biosSplit || carveOutBytes >= machine.biosSplit->physicalBytes) {
        return std::nullopt;
    }
    Machine result = machine;
    const std::uint64_t systemBytes = machine.biosSplit->physicalBytes - carveOutBytes;
    result.biosSplit->carveOutBytes = carveOutBytes;
    // The "free" llama.cpp printed belongs to the split it was printed on.
    result.observedBackendFreeBytes.reset();
    for (MemoryPool& pool : result.pools) {
        switch (pool.kind) {
        case PoolKind::ApuCarveout:
            pool.capacityBytes = carveOutBytes;
            break;
        case PoolKind::HostRam:
            pool.capacityBytes = systemBytes;
            break;
        case PoolKind::ApuShared:
            pool.capacityBytes = sharedWindowBytes(machine.os, systemBytes, machine.gttLimitBytes);
            break;
        case PoolKind::DiscreteVram:
        case PoolKind::RpcHost:
            break;
        }
    }
    return result;
}

std::vector<GpuDevice> sizingGpus(const Machine& machine) {
    std::vector<GpuDevice> gpus;
    for (const MachineGpu& gpu : machine.gpus) {
        const std::uint64_t usable =
            gpu.poolIndex < machine.pools.size() ? machine.pools[gpu.poolIndex].usableBytes() : 0;
        gpus.push_back(GpuDevice{gpu.name, usable, gpu.backend, gpu.integrated, std::nullopt, gpu.limits});
    }
    return gpus;
}

bool isApu(const Machine& machine) {
    return poolIndex(machine, PoolKind::ApuCarveout).has_value() ||
           std::any_of(machine.gpus.begin(), machine.gpus.end(),
                       [](const MachineGpu& gpu) { return gpu.integrated; });
}

const MemoryPool* findPool(const Machine& machine, PoolKind kind) {
    const std::optional<std::size_t> index = poolIndex(machine, kind);
    return index ? &machine.pools[*index] : nullptr;
}

std::string_view poolKindName(PoolKind kind) {
    return nameOf(kPoolKindNames, kind);
}
std::optional<PoolKind> poolKindFromName(std::string_view name) {
    return valueOf(kPoolKindNames, name);
}
std::string_view osKindName(OsKind os) {
    return nameOf(kOsNames, os);
}
std::optional<OsKind> osKindFromName(std::string_view name) {
    return valueOf(kOsNames, name);
}
std::string_view backendName(Backend backend) {
    return nameOf(kBackendNames, backend);
}
std::optional<Backend> backendFromName(std::string_view name) {
    return valueOf(kBackendNames, name);
}

} // namespace llamafit

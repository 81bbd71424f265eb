#pragma once
// Machine: a pure model of the memory a machine really offers llama-server, as pools. A
// discrete GPU has its own VRAM pool; the host has a system-RAM pool. An APU has ONE physical
// memory split by the BIOS into two pools -- the carve-out (dedicated VRAM) and the system RAM
// the OS sees -- plus a "shared GPU memory" window (Linux GTT, Windows shared GPU memory) that
// is not extra memory: it is system RAM the GPU may also map.
//
// Built from a profile (machineprofile.h), from discovery (machinefrominventory.h) or by
// makeApuMachine(); read by placeOnMachine() (poolusage.h), the BIOS split advisor, the CLI's
// `plan` and `machines`, and the GUI. Pure values, no I/O. Bytes are std::uint64_t.
//
// Sources: the GTT and shared-memory rules are in /work/shared/reference/unified-memory.md
// sections 1-3 (drm/amdgpu "Adjust logic around GTT size (v3)", Windows shared = 1/2 RAM).

#include "core/sizing/serversettings.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class PoolKind {
    DiscreteVram, // a discrete GPU's own memory
    ApuCarveout,  // an APU's BIOS carve-out ("UMA frame buffer", AMD VGM): dedicated VRAM
    HostRam,      // the system RAM the OS manages (on an APU: physical minus the carve-out)
    ApuShared,    // Linux GTT / Windows shared GPU memory: a window onto HostRam, not extra memory
    RpcHost,      // what a ggml-rpc-server reports free for its device, on another host (rpccluster.h)
};

enum class OsKind { Linux, Windows, MacOs, Unknown };

struct MemoryPool {
    std::string name; // for people: "BIOS carve-out (dedicated VRAM)", "System RAM"
    PoolKind kind = PoolKind::HostRam;
    std::uint64_t capacityBytes = 0;
    bool capacityKnown = true;           // false: no source gave the size (discovery failed); never guessed
    std::uint64_t reservedByOsBytes = 0; // used before llama-server starts: the OS, desktop, other programs
    // Index (in Machine::pools) of the pool whose physical memory this one also uses: an
    // ApuShared pool names the HostRam pool, so bytes placed in it count there too.
    std::optional<std::size_t> sharesPhysicalWith;
    std::uint64_t usableBytes() const {
        return capacityBytes > reservedByOsBytes ? capacityBytes - reservedByOsBytes : 0;
    }
    bool operator==(const MemoryPool&) const = default;
};

// A GPU as the sizing core sees it, and the pool its buffers land in.
struct MachineGpu {
    std::string name;  // llama.cpp's buffer name: "Vulkan0", "CUDA0"
    std::string model; // for people: "Radeon 8060S (RDNA 3.5, gfx1151)"
    Backend backend = Backend::Vulkan;
    bool integrated = false;
    std::size_t poolIndex = 0; // where its device buffers go (carve-out, shared memory or its VRAM)
    DeviceLimits limits = {};  // what keeps a weight or an op off it (serversettings.h)
    bool operator==(const MachineGpu&) const = default;
};

// An APU's BIOS choice: how much of the physical memory is carved out as dedicated VRAM.
struct BiosSplit {
    std::uint64_t physicalBytes = 0;                 // installed memory, e.g. 64 GiB
    std::uint64_t carveOutBytes = 0;                 // the current setting
    std::vector<std::uint64_t> offeredCarveOutBytes; // the sizes the BIOS offers (carveoutchoices.h)
    std::string offeredSource;                       // where that list comes from
    bool operator==(const BiosSplit&) const = default;
};

struct Machine {
    std::string id;   // "gmktec-evo-x2-64gb-32-32", "detected", ...
    std::string name; // "GMKtec EVO-X2 — Ryzen AI Max+ 395, 64 GB, BIOS 32/32"
    OsKind os = OsKind::Unknown;
    std::string cpuName;
    std::vector<MachineGpu> gpus;
    std::vector<MemoryPool> pools;
    std::size_t hostPoolIndex = 0; // the system-RAM pool
    std::optional<std::uint64_t>
        bandwidthBytesPerSecond; // memory bandwidth the GPU (or CPU) reads weights at
    std::string bandwidthSource;
    // FP16 peak of the device that runs the matmuls (TFLOPS, vendor figure): the speed model's
    // prompt-processing rate (speedmodel.h). nullopt = unknown, no prompt estimate.
    std::optional<double> fp16Tflops;
    std::optional<BiosSplit> biosSplit; // APUs only
    std::optional<std::uint64_t>
        gttLimitBytes; // Linux ttm.pages_limit / amdgpu.gttsize; nullopt = kernel default
    std::optional<std::uint64_t>
        observedBackendFreeBytes;     // a "free" figure llama.cpp printed on this machine
    std::vector<std::string> sources; // where every figure comes from
    std::vector<std::string> notes;   // what is missing or assumed
    bool operator==(const Machine&) const = default;
};

// What an APU is made of; makeApuMachine() turns it into pools.
struct ApuConfig {
    std::string id;
    std::string name;
    OsKind os = OsKind::Windows;
    std::string cpuName;
    std::string gpuModel;
    Backend backend = Backend::Vulkan;
    std::uint64_t physicalBytes = 0;
    std::uint64_t carveOutBytes = 0;
    std::uint64_t osUseBytes = 0;       // system RAM the OS and other programs use
    std::uint64_t desktopVramBytes = 0; // carve-out the desktop and other GPU users hold
    std::optional<std::uint64_t> gttLimitBytes;
    // Where the GPU's buffers go: the carve-out (AMD with a real carve-out), or the shared
    // window (Intel iGPUs, Linux APUs set up with a minimal carve-out and a large GTT).
    bool gpuUsesSharedMemory = false;
    std::vector<std::uint64_t> offeredCarveOutBytes;
    std::string offeredSource;
    DeviceLimits gpuLimits = {};
};

// Pools: [0] carve-out, [1] system RAM, [2] shared/GTT (sharing [1]); one integrated GPU.
Machine makeApuMachine(const ApuConfig& config);

// The same APU with another BIOS carve-out: pools recomputed, reservations kept. nullopt when
// the machine has no BIOS split or the carve-out leaves no system RAM.
std::optional<Machine> withCarveOut(const Machine& machine, std::uint64_t carveOutBytes);

// The size of the shared window the driver gives an integrated GPU over `systemRamBytes`:
// Linux GTT = max(3 GiB, RAM/2) unless ttm.pages_limit says otherwise (capped to the RAM, as
// kernels after "cap GTT size to physical RAM on APUs" do); Windows shared GPU memory = RAM/2.
std::uint64_t sharedWindowBytes(OsKind os, std::uint64_t systemRamBytes,
                                std::optional<std::uint64_t> gttLimitBytes);

// The GpuDevice list estimateMemory() takes for this machine: one per GPU, sized to the usable
// bytes of its pool.
std::vector<GpuDevice> sizingGpus(const Machine& machine);

bool isApu(const Machine& machine);
const MemoryPool* findPool(const Machine& machine, PoolKind kind);

std::string_view
poolKindName(PoolKind kind); // "discrete-vram", "apu-carve-out", "host-ram", "apu-shared", "rpc-host"
std::optional<PoolKind> poolKindFromName(std::string_view name);
std::string_view osKindName(OsKind os); // "linux", "windows", "macos", "unknown"
std::optional<OsKind> osKindFromName(std::string_view name);
std::string_view backendName(Backend backend); // "cpu", "cuda", "vulkan", "metal", "rocm", "other"
std::optional<Backend> backendFromName(std::string_view name);

} // namespace llamafit

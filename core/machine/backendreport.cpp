// The backend's view of free memory, per backend, and why it differs from the plan.
#include "core/machine/backendreport.h"

#include "core/common/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace llamafit {

namespace {

std::string backendLabel(Backend backend) {
    switch (backend) {
    case Backend::Vulkan:
        return "Vulkan";
    case Backend::Cuda:
        return "CUDA";
    case Backend::Rocm:
        return "ROCm";
    case Backend::Metal:
        return "Metal";
    case Backend::Cpu:
        return "The CPU backend";
    case Backend::Rpc:
        return "The RPC server";
    case Backend::Other:
        break;
    }
    return "The backend";
}

std::uint64_t capacityOf(const Machine& machine, PoolKind kind) {
    const MemoryPool* pool = findPool(machine, kind);
    return pool != nullptr ? pool->capacityBytes : 0;
}

BackendMemoryView hostView(const Machine& machine) {
    BackendMemoryView view;
    view.device = "CPU";
    const MemoryPool& host = machine.pools.at(machine.hostPoolIndex);
    view.reportedTotalBytes = host.capacityBytes;
    view.reportedFreeBytes = host.usableBytes();
    view.planLimitBytes = host.usableBytes();
    // common/fit.cpp: with no GPU the host total is the target.
    view.explanation = host.capacityKnown
                           ? "No GPU: llama.cpp sizes against host memory (" +
                                 formatGiBShort(host.capacityBytes) +
                                 "), and LlamaFit plans against what the OS and other programs leave (" +
                                 formatGiBShort(host.usableBytes()) + ")"
                           : "No GPU, and the host memory size is unknown: nothing to plan against";
    return view;
}

// Integrated GPU: ggml-vulkan.cpp ggml_backend_vk_get_device_memory adds every heap when the
// device is integrated (budget - usage per heap with VK_EXT_memory_budget), so the carve-out and
// the shared/GTT heap are both counted. HIP's hipMemGetInfo on APUs reports VRAM + GTT on
// kernels >= 6.10 (llama.cpp PR #20472 data: total == TTM limit), the same picture.
BackendMemoryView integratedView(const Machine& machine, const MachineGpu& gpu) {
    BackendMemoryView view;
    view.device = gpu.name;
    const std::uint64_t carveOut = capacityOf(machine, PoolKind::ApuCarveout);
    const std::uint64_t shared = capacityOf(machine, PoolKind::ApuShared);
    const MemoryPool& host = machine.pools.at(machine.hostPoolIndex);
    const MemoryPool* carvePool = findPool(machine, PoolKind::ApuCarveout);
    view.reportedTotalBytes = carveOut + shared;
    const std::uint64_t carveFree = carvePool != nullptr ? carvePool->usableBytes() : 0;
    view.reportedFreeBytes = carveFree + std::min(shared, host.usableBytes());
    if (machine.observedBackendFreeBytes) {
        view.reportedFreeBytes = *machine.observedBackendFreeBytes;
        view.freeObserved = true;
    }
    const MemoryPool& planPool = machine.pools.at(gpu.poolIndex);
    view.planLimitBytes = planPool.usableBytes();
    const std::uint64_t carvePart = std::min(view.reportedFreeBytes, carveOut);
    const std::uint64_t sharedPart = view.reportedFreeBytes - carvePart;
    const std::string sharedName = machine.os == OsKind::Linux ? "GTT memory" : "shared GPU memory";
    const std::string verb = view.freeObserved ? " reports " : " will report about ";
    std::string sentence = backendLabel(gpu.backend) + verb + formatMiBGrouped(view.reportedFreeBytes) +
                           " free because llama.cpp adds up every memory heap of an integrated GPU (the " +
                           formatGiBShort(carveOut) + " BIOS carve-out plus ~" + formatGiBShort(sharedPart) +
                           " of " + sharedName + ", which is system RAM the OS also uses)";
    if (planPool.kind == PoolKind::ApuCarveout) {
        sentence += "; LlamaFit plans against the " + formatGiBShort(carveOut) + " carve-out";
    } else {
        sentence += "; LlamaFit plans against the " + formatGiBShort(planPool.capacityBytes) + " of " +
                    sharedName + " and counts it against the system RAM as well";
    }
    view.explanation = sentence;
    return view;
}

BackendMemoryView discreteView(const Machine& machine, const MachineGpu& gpu) {
    BackendMemoryView view;
    view.device = gpu.name;
    const MemoryPool& pool = machine.pools.at(gpu.poolIndex);
    view.reportedTotalBytes = pool.capacityBytes;
    view.reportedFreeBytes = pool.usableBytes();
    if (machine.observedBackendFreeBytes) {
        view.reportedFreeBytes = *machine.observedBackendFreeBytes;
        view.freeObserved = true;
    }
    view.planLimitBytes = pool.usableBytes();
    view.explanation = backendLabel(gpu.backend) + " reports the card's own " +
                       formatGiBShort(pool.capacityBytes) +
                       " of VRAM, less what other programs hold; LlamaFit plans against the same " +
                       formatGiBShort(pool.usableBytes());
    return view;
}

// A ggml-rpc-server's device: its pool is the free memory the server reported (rpccluster.h).
BackendMemoryView rpcView(const Machine& machine, const MachineGpu& gpu) {
    BackendMemoryView view;
    view.device = gpu.name;
    const MemoryPool& pool = machine.pools.at(gpu.poolIndex);
    view.reportedTotalBytes = pool.capacityBytes;
    view.reportedFreeBytes = pool.capacityBytes;
    view.planLimitBytes = pool.usableBytes();
    view.explanation =
        "The RPC server " + gpu.name + " reports " + formatGiBShort(pool.capacityBytes) +
        " free for its device, which llama.cpp splits layers by; LlamaFit plans against the same " +
        formatGiBShort(pool.usableBytes());
    return view;
}

} // namespace

BackendMemoryView backendMemoryView(const Machine& machine, std::size_t gpuIndex) {
    if (gpuIndex >= machine.gpus.size()) {
        return hostView(machine);
    }
    const MachineGpu& gpu = machine.gpus[gpuIndex];
    if (gpu.poolIndex < machine.pools.size() && machine.pools[gpu.poolIndex].kind == PoolKind::RpcHost) {
        return rpcView(machine, gpu);
    }
    return gpu.integrated ? integratedView(machine, gpu) : discreteView(machine, gpu);
}

std::string formatMiBGrouped(std::uint64_t bytes) {
    const std::string digits = std::to_string(static_cast<std::uint64_t>(std::llround(toMiB(bytes))));
    std::string grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            grouped += ',';
        }
        grouped += digits[i];
    }
    return grouped + " MiB";
}

std::string formatGiBShort(std::uint64_t bytes) {
    const double gib = toGiB(bytes);
    char text[32];
    // Whole numbers stay whole ("32 GiB"); others get one decimal ("13.4 GiB").
    if (std::fabs(gib - std::round(gib)) < 0.05) {
        std::snprintf(text, sizeof text, "%.0f GiB", gib);
    } else {
        std::snprintf(text, sizeof text, "%.1f GiB", gib);
    }
    return text;
}

} // namespace llamafit

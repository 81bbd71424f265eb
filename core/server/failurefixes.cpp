#include "core/server/failurefixes.h"

#include "core/common/units.h"
#include "core/flags/flagtable.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "core/sizing/solvers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace llamafit {
namespace {

// How a fix spells the setting it changes: 0.7.0's spelling, from the flag table.
std::string flagOf(Setting setting) {
    return std::string(flagRowOf(setting).canonicalSpelling());
}

std::optional<Component> componentOfPhase(AllocationPhase phase) {
    switch (phase) {
    case AllocationPhase::ModelLoad:
        return Component::Model;
    case AllocationPhase::Output:
        return Component::Output;
    case AllocationPhase::KvCache:
        return Component::Kv;
    case AllocationPhase::RecurrentState:
        return Component::Rs;
    case AllocationPhase::Compute:
    case AllocationPhase::Runtime: // a larger graph than reserved: the compute buffer grew
        return Component::Compute;
    case AllocationPhase::Unknown:
        break;
    }
    return std::nullopt;
}

// The estimate's device the failed buffer type belongs to: by name ("CPU", "CUDA0"), else the
// only GPU, else the first GPU whose name starts with the backend ("Vulkan" -> "Vulkan0").
std::optional<std::size_t> failedDeviceIndex(const MemoryEstimate& estimate,
                                             const AllocationFailure& failure) {
    const std::string name = failure.bufferType.empty() ? "CPU" : deviceOfBufferType(failure.bufferType);
    for (std::size_t i = 0; i < estimate.devices.size(); ++i) {
        if (estimate.devices[i].name == name) {
            return i;
        }
    }
    if (isHostBufferType(name) || estimate.devices.size() < 2) {
        return std::nullopt;
    }
    if (estimate.devices.size() == 2) {
        return 1;
    }
    for (std::size_t i = 1; i < estimate.devices.size(); ++i) {
        if (estimate.devices[i].name.rfind(name, 0) == 0) {
            return i;
        }
    }
    return std::nullopt;
}

// Tries one changed setting: kept when the estimate accepts it and it fits the budget.
class FixFinder {
  public:
    FixFinder(const SizingModel& model, const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
              const MemoryBudget& budget, std::size_t device)
        : m_model(model), m_settings(settings), m_gpus(gpus), m_budget(budget), m_device(device) {}

    std::optional<FailureFix> attempt(const ServerSettings& changed) const {
        const Result<MemoryEstimate> estimate = estimateMemory(m_model, changed, m_gpus);
        if (!estimate.ok() || !fitsBudget(*estimate, m_budget) || m_device >= estimate->devices.size()) {
            return std::nullopt;
        }
        FailureFix fix;
        fix.settings = changed;
        fix.deviceBytes = estimate->devices[m_device].bytes.totalBytes();
        fix.totalBytes = estimate->totals.totalBytes();
        return fix;
    }
    const SizingModel& model() const { return m_model; }
    const ServerSettings& settings() const { return m_settings; }
    const std::vector<GpuDevice>& gpus() const { return m_gpus; }
    const MemoryBudget& budget() const { return m_budget; }

  private:
    const SizingModel& m_model;
    const ServerSettings& m_settings;
    const std::vector<GpuDevice>& m_gpus;
    const MemoryBudget& m_budget;
    std::size_t m_device;
};

void finish(FailureFix& fix, FixKind kind, std::uint64_t from, std::uint64_t to,
            std::vector<std::string> removed, std::vector<std::string> added) {
    fix.kind = kind;
    fix.from = from;
    fix.to = to;
    fix.removedArgs = std::move(removed);
    fix.addedArgs = std::move(added);
}

std::optional<FailureFix> contextFix(const FixFinder& f, const MemoryEstimate& current) {
    const ServerSettings& s = f.settings();
    const auto fits =
        largestContextPerKvPair(f.model(), s, f.gpus(), f.budget(), {{s.cacheTypeK, s.cacheTypeV}});
    if (fits.empty() || !fits[0].fits || fits[0].contextTokens >= current.context.nCtx) {
        return std::nullopt;
    }
    ServerSettings changed = s;
    changed.contextTokens = fits[0].contextTokens;
    auto fix = f.attempt(changed);
    if (fix) {
        const std::string from = std::to_string(s.contextTokens.value_or(current.context.nCtx));
        const std::string to = std::to_string(fits[0].contextTokens);
        std::vector<std::string> removed;
        if (s.contextTokens) {
            removed = {flagOf(Setting::Context), from};
        }
        finish(*fix, FixKind::Context, s.contextTokens.value_or(current.context.nCtx), fits[0].contextTokens,
               removed, {flagOf(Setting::Context), to});
    }
    return fix;
}

std::optional<FailureFix> cacheTypeFix(const FixFinder& f) {
    const ServerSettings& s = f.settings();
    const ContextFit best = bestKvPairForContext(f.model(), s, f.gpus(), f.budget());
    if (!best.fits || (best.typeK == s.cacheTypeK && best.typeV == s.cacheTypeV)) {
        return std::nullopt;
    }
    ServerSettings changed = s;
    changed.cacheTypeK = best.typeK;
    changed.cacheTypeV = best.typeV;
    auto fix = f.attempt(changed);
    if (!fix) {
        return std::nullopt;
    }
    const std::string oldK(ggmlTypeName(s.cacheTypeK)), oldV(ggmlTypeName(s.cacheTypeV));
    const std::string newK(ggmlTypeName(best.typeK)), newV(ggmlTypeName(best.typeV));
    finish(*fix, FixKind::CacheTypes, 0, 0,
           {flagOf(Setting::CacheTypeK), oldK, flagOf(Setting::CacheTypeV), oldV},
           {flagOf(Setting::CacheTypeK), newK, flagOf(Setting::CacheTypeV), newV});
    fix->fromK = s.cacheTypeK;
    fix->fromV = s.cacheTypeV;
    fix->toK = best.typeK;
    fix->toV = best.typeV;
    return fix;
}

std::optional<FailureFix> slotsFix(const FixFinder& f, const MemoryEstimate& current) {
    const std::uint32_t slots = current.context.nSeqMax;
    for (std::uint32_t n = slots / 2; n >= 1; n /= 2) {
        ServerSettings changed = f.settings();
        changed.parallelSlots = n;
        if (auto fix = f.attempt(changed)) {
            const std::string from = std::to_string(slots), to = std::to_string(n);
            std::vector<std::string> removed;
            if (f.settings().parallelSlots) {
                removed = {flagOf(Setting::Parallel), from};
            }
            finish(*fix, FixKind::Slots, slots, n, removed, {flagOf(Setting::Parallel), to});
            return fix;
        }
    }
    return std::nullopt;
}

std::optional<FailureFix> ubatchFix(const FixFinder& f, const MemoryEstimate& current) {
    const std::uint32_t ubatch = current.context.nUbatch;
    for (std::uint32_t n = ubatch / 2; n >= 32; n /= 2) {
        ServerSettings changed = f.settings();
        changed.ubatchTokens = n;
        if (auto fix = f.attempt(changed)) {
            const std::string from = std::to_string(ubatch), to = std::to_string(n);
            finish(*fix, FixKind::Ubatch, ubatch, n, {flagOf(Setting::Ubatch), from},
                   {flagOf(Setting::Ubatch), to});
            return fix;
        }
    }
    return std::nullopt;
}

std::optional<FailureFix> gpuLayersFix(const FixFinder& f, const MemoryEstimate& current) {
    const GpuLayerFit fit = mostGpuLayers(f.model(), f.settings(), f.gpus(), f.budget());
    if (!fit.fits || static_cast<std::uint32_t>(fit.gpuLayers) >= current.gpuLayers) {
        return std::nullopt;
    }
    ServerSettings changed = f.settings();
    changed.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(fit.gpuLayers));
    auto fix = f.attempt(changed);
    if (fix) {
        const std::string to = std::to_string(fit.gpuLayers);
        finish(*fix, FixKind::GpuLayers, current.gpuLayers, static_cast<std::uint64_t>(fit.gpuLayers), {},
               {flagOf(Setting::GpuLayers), to});
    }
    return fix;
}

} // namespace

std::string_view fixKindName(FixKind kind) {
    switch (kind) {
    case FixKind::Context:
        return "context";
    case FixKind::CacheTypes:
        return "cache-types";
    case FixKind::Slots:
        return "slots";
    case FixKind::Ubatch:
        return "ubatch";
    case FixKind::GpuLayers:
        break;
    }
    return "gpu-layers";
}

Result<FailureDiagnosis> diagnoseAllocationFailure(const SizingModel& model, const ServerSettings& settings,
                                                   const std::vector<GpuDevice>& gpus,
                                                   const AllocationFailure& failure,
                                                   std::uint64_t availableBytes) {
    if (availableBytes == 0) {
        return makeError("server.zero-budget",
                         "the failed device's available memory is needed (got 0 bytes)");
    }
    const Result<MemoryEstimate> current = estimateMemory(model, settings, gpus);
    if (!current.ok()) {
        return current.error();
    }
    const std::optional<std::size_t> index = failedDeviceIndex(*current, failure);
    if (!index) {
        return makeError("server.no-failed-device", "the failed buffer type '" + failure.bufferType +
                                                        "' is on no device of these settings");
    }
    const DeviceEstimate& device = current->devices[*index];
    FailureDiagnosis diagnosis;
    diagnosis.device = device.name;
    diagnosis.budgetBytes = availableBytes;
    diagnosis.predictedDeviceBytes = device.bytes.totalBytes();

    // The failed size against each predicted buffer on the device (an iSWA model allocates
    // its two KV caches separately, so a single buffer may be what failed, not the sum).
    const auto matches = [&](std::uint64_t predicted) {
        return failure.failedBytes && predicted > 0 &&
               std::fabs(static_cast<double>(predicted) - static_cast<double>(*failure.failedBytes)) <=
                   0.01 * static_cast<double>(*failure.failedBytes);
    };
    diagnosis.component = componentOfPhase(failure.phase);
    const BufferEstimate* nearest = nullptr;
    for (const BufferEstimate& buffer : device.buffers) {
        if (diagnosis.component && buffer.component != *diagnosis.component) {
            continue;
        }
        if (matches(buffer.bytes) && (nearest == nullptr || !matches(nearest->bytes))) {
            nearest = &buffer;
        }
    }
    if (nearest != nullptr) {
        diagnosis.sizeMatched = true;
        diagnosis.component = nearest->component;
        diagnosis.predictedBufferBytes = nearest->bytes;
    } else if (diagnosis.component) {
        diagnosis.predictedBufferBytes = device.bytes.get(*diagnosis.component);
        diagnosis.sizeMatched = matches(diagnosis.predictedBufferBytes);
    }

    MemoryBudget budget;
    budget.gpuBytes.assign(gpus.size(), 0);
    if (*index == 0) {
        budget.hostBytes = availableBytes;
    } else if (*index - 1 < budget.gpuBytes.size()) {
        budget.gpuBytes[*index - 1] = availableBytes;
    }
    const FixFinder finder(model, settings, gpus, budget, *index);
    const MemoryEstimate& now = *current;
    std::vector<std::optional<FailureFix>> candidates;
    switch (diagnosis.component.value_or(Component::Overhead)) {
    case Component::Compute:
        candidates = {ubatchFix(finder, now), contextFix(finder, now), slotsFix(finder, now),
                      gpuLayersFix(finder, now)};
        break;
    case Component::Model:
        candidates = {gpuLayersFix(finder, now), contextFix(finder, now)};
        break;
    case Component::Rs:
    case Component::Output:
        candidates = {slotsFix(finder, now), contextFix(finder, now)};
        break;
    default: // KV or unknown: the context is the usual culprit
        candidates = {contextFix(finder, now), cacheTypeFix(finder), slotsFix(finder, now),
                      ubatchFix(finder, now), gpuLayersFix(finder, now)};
        break;
    }
    for (auto& candidate : candidates) {
        if (candidate) {
            diagnosis.fixes.push_back(std::move(*candidate));
        }
    }

    diagnosis.failedBytes = failure.failedBytes;
    return diagnosis;
}

std::uint64_t lowerBoundFromLog(std::string_view log, const AllocationFailure& failure) {
    const Result<AllocationLog> parsed = parseAllocationLog(log);
    if (!parsed.ok()) {
        return 0;
    }
    const std::string name = failure.bufferType.empty() ? "CPU" : deviceOfBufferType(failure.bufferType);
    for (const LoggedDevice& device : parsed->devices()) {
        if (device.name == name) {
            return static_cast<std::uint64_t>(std::llround(device.totalMiB() * static_cast<double>(kMiB)));
        }
    }
    return 0;
}

} // namespace llamafit

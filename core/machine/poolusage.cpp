// Estimate components -> machine pools; see poolusage.h.
#include "core/machine/poolusage.h"

#include "core/machine/hostterms.h"
#include "core/sizing/memoryestimate.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace llamafit {

namespace {

std::optional<std::size_t> gpuPoolIndex(const Machine& machine, const std::string& device) {
    for (const MachineGpu& gpu : machine.gpus) {
        if (gpu.name == device && gpu.poolIndex < machine.pools.size()) {
            return gpu.poolIndex;
        }
    }
    return std::nullopt;
}

void addDeviceTerms(PoolLoad& load, const DeviceEstimate& device) {
    for (const Component component : {Component::Model, Component::Kv, Component::Rs, Component::Output,
                                      Component::Compute, Component::Overhead}) {
        const std::uint64_t bytes = device.bytes.get(component);
        if (bytes > 0) {
            load.terms.push_back(
                PoolTerm{bytes, false, false, false,
                         SizeRule{.id = SizeRuleId::DeviceBuffers, .hostDevice = device.host}, component,
                         device.name});
        }
    }
}

FitVerdict verdictFor(const PoolLoad& load, std::uint64_t margin) {
    if (!load.capacityKnown) {
        return FitVerdict::Unknown;
    }
    if (load.atLoadBytes > load.capacityBytes) {
        return FitVerdict::DoesNotFit;
    }
    // The margin guards llama-server's allocations; a pool it does not use is not "tight".
    const bool used = load.llamaAtLoadBytes > 0 || load.upToBytes > load.atLoadBytes || load.unbounded;
    if (used && (load.unbounded || load.atLoadBytes + margin > load.capacityBytes ||
                 load.upToBytes + margin > load.capacityBytes)) {
        return FitVerdict::Tight;
    }
    return FitVerdict::Fits;
}

int severity(FitVerdict verdict) {
    switch (verdict) {
    case FitVerdict::Fits:
        return 0;
    case FitVerdict::Tight:
        return 1;
    case FitVerdict::DoesNotFit:
        return 2;
    case FitVerdict::Unknown:
        break;
    }
    return -1;
}

void total(PoolLoad& load, std::uint64_t margin) {
    load.atLoadBytes = load.upToBytes = load.llamaAtLoadBytes = 0;
    load.unbounded = false;
    for (const PoolTerm& term : load.terms) {
        load.unbounded = load.unbounded || term.unbounded;
        if (term.upTo) {
            load.upToBytes += term.bytes;
            continue;
        }
        load.atLoadBytes += term.bytes;
        load.upToBytes += term.bytes;
        if (!term.reservation) {
            load.llamaAtLoadBytes += term.bytes;
        }
    }
    load.headroomBytes =
        static_cast<std::int64_t>(load.capacityBytes) - static_cast<std::int64_t>(load.atLoadBytes);
    load.worstHeadroomBytes =
        static_cast<std::int64_t>(load.capacityBytes) - static_cast<std::int64_t>(load.upToBytes);
    load.verdict = verdictFor(load, margin);
}

// Totals and verdicts of every pool from its terms, and the usage's worst verdict.
void totalPools(PoolUsage& usage, bool noteUnknownPools) {
    usage.verdict = FitVerdict::Fits;
    for (PoolLoad& load : usage.pools) {
        total(load, usage.marginBytes);
        if (!load.capacityKnown) {
            if (noteUnknownPools) {
                usage.notes.push_back(load.poolName + ": size unknown (no source gave it), not checked");
            }
        } else if (severity(load.verdict) > severity(usage.verdict)) {
            usage.verdict = load.verdict;
        }
    }
}

} // namespace

const PoolLoad* PoolUsage::find(PoolKind kind) const {
    const auto it =
        std::find_if(pools.begin(), pools.end(), [kind](const PoolLoad& load) { return load.kind == kind; });
    return it != pools.end() ? &*it : nullptr;
}

PoolUsage placeOnMachine(const MemoryEstimate& estimate, const ServerSettings& settings,
                         const ModelInfo& model, const Machine& machine, const PlacementOptions& options) {
    PoolUsage usage;
    usage.marginBytes = options.marginBytes;
    for (std::size_t i = 0; i < machine.pools.size(); ++i) {
        const MemoryPool& pool = machine.pools[i];
        PoolLoad load;
        load.poolIndex = i;
        load.poolName = pool.name;
        load.kind = pool.kind;
        load.capacityBytes = pool.capacityBytes;
        load.capacityKnown = pool.capacityKnown;
        if (pool.reservedByOsBytes > 0) {
            const SizeRuleId who =
                pool.kind == PoolKind::HostRam ? SizeRuleId::HostReservation : SizeRuleId::GpuReservation;
            load.terms.push_back(
                PoolTerm{pool.reservedByOsBytes, false, false, true, SizeRule{.id = who}, std::nullopt, {}});
        }
        usage.pools.push_back(std::move(load));
    }
    if (machine.hostPoolIndex >= usage.pools.size()) {
        usage.notes.push_back("the machine has no system-RAM pool: host buffers are not placed");
        return usage;
    }

    for (const DeviceEstimate& device : estimate.devices) {
        const std::optional<std::size_t> index = device.host
                                                     ? std::optional<std::size_t>(machine.hostPoolIndex)
                                                     : gpuPoolIndex(machine, device.name);
        if (!index) {
            usage.notes.push_back("device " + device.name +
                                  " of the estimate is not on this machine: not placed");
            continue;
        }
        addDeviceTerms(usage.pools[*index], device);
        // A pool that maps system RAM (Linux GTT, Windows shared GPU memory) takes its bytes
        // out of the RAM it shares: count them there as well.
        const std::optional<std::size_t> shared = machine.pools[*index].sharesPhysicalWith;
        if (shared && *shared < usage.pools.size()) {
            usage.pools[*shared].terms.push_back(
                PoolTerm{device.bytes.totalBytes(), false, false, false,
                         SizeRule{.id = SizeRuleId::SharedMemoryCopy, .pool = machine.pools[*index].name},
                         std::nullopt, device.name});
        }
    }

    for (const HostTerm& term : hostTerms(estimate, settings, model, sizingGpus(machine))) {
        usage.pools[machine.hostPoolIndex].terms.push_back(
            PoolTerm{term.bytes, term.upTo, term.unbounded, false, term.rule, std::nullopt, {}});
    }

    totalPools(usage, true);
    return usage;
}

PoolUsage stackPoolUsages(const std::vector<const PoolUsage*>& usages) {
    if (usages.empty()) {
        return {};
    }
    PoolUsage stacked;
    stacked.marginBytes = usages.front()->marginBytes;
    for (const PoolLoad& first : usages.front()->pools) {
        PoolLoad load = first;
        // The reservation is the machine's, there once however many servers run.
        std::erase_if(load.terms, [](const PoolTerm& term) { return !term.reservation; });
        stacked.pools.push_back(std::move(load));
    }
    for (const PoolUsage* usage : usages) {
        for (std::size_t i = 0; i < usage->pools.size() && i < stacked.pools.size(); ++i) {
            for (const PoolTerm& term : usage->pools[i].terms) {
                if (!term.reservation) {
                    stacked.pools[i].terms.push_back(term);
                }
            }
        }
        for (const std::string& note : usage->notes) {
            if (std::find(stacked.notes.begin(), stacked.notes.end(), note) == stacked.notes.end()) {
                stacked.notes.push_back(note);
            }
        }
    }
    totalPools(stacked, false); // each usage's notes already say which pools are not checked
    return stacked;
}

std::string_view fitVerdictName(FitVerdict verdict) {
    switch (verdict) {
    case FitVerdict::Fits:
        return "fits";
    case FitVerdict::Tight:
        return "tight";
    case FitVerdict::DoesNotFit:
        return "does-not-fit";
    case FitVerdict::Unknown:
        break;
    }
    return "unknown";
}

} // namespace llamafit

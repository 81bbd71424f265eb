// machineJson: the profile file and the CLI report of a Machine; see machinejson.h.

#include "core/machine/machinejson.h"

#include "core/common/units.h"

namespace llamafit {

namespace {

using OrderedJson = nlohmann::ordered_json;

// Whole MiB as integers, anything else as the exact binary fraction (bytes / 2^20 is exact in
// a double below 2^53 bytes), so parse(write(m)) == m to the byte.
OrderedJson mibValue(std::uint64_t bytes) {
    if (bytes % kMiB == 0) {
        return bytes / kMiB;
    }
    return static_cast<double>(bytes) / static_cast<double>(kMiB);
}

OrderedJson gpusJson(const Machine& machine) {
    OrderedJson gpus = OrderedJson::array();
    for (const MachineGpu& gpu : machine.gpus) {
        OrderedJson entry = {{"name", gpu.name},
                             {"model", gpu.model},
                             {"backend", backendName(gpu.backend)},
                             {"integrated", gpu.integrated},
                             {"pool", gpu.poolIndex}};
        // Written only when known, so profiles without them read back unchanged.
        if (gpu.limits.maxStorageBufferRangeBytes) {
            entry["max_storage_buffer_range_bytes"] = *gpu.limits.maxStorageBufferRangeBytes;
        }
        if (gpu.limits.maxAllocationBytes) {
            entry["max_allocation_bytes"] = *gpu.limits.maxAllocationBytes;
        }
        gpus.push_back(std::move(entry));
    }
    return gpus;
}

} // namespace

OrderedJson machineJson(const Machine& machine, MachineJsonForm form) {
    // The file is edited by people (MiB); the report is read by programs (exact bytes).
    const bool file = form == MachineJsonForm::ProfileFile;
    const auto size = [file](std::uint64_t bytes) { return file ? mibValue(bytes) : OrderedJson(bytes); };
    const std::string unit = file ? "_mib" : "_bytes";

    OrderedJson root;
    if (file) {
        root["format"] = "llamafit-machine";
        root["version"] = 1;
    }
    root["id"] = machine.id;
    root["name"] = machine.name;
    root["os"] = osKindName(machine.os);
    if (file && !machine.cpuName.empty()) {
        root["cpu"] = machine.cpuName;
    }
    if (!file) {
        root["apu"] = isApu(machine);
        root["gpus"] = gpusJson(machine);
    }
    OrderedJson pools = OrderedJson::array();
    for (const MemoryPool& pool : machine.pools) {
        OrderedJson item{{"name", pool.name}, {"kind", poolKindName(pool.kind)}};
        item["capacity" + unit] = pool.capacityKnown ? size(pool.capacityBytes) : OrderedJson(nullptr);
        item["reserved" + unit] = size(pool.reservedByOsBytes);
        if (file) {
            item["shares_with"] =
                pool.sharesPhysicalWith ? OrderedJson(*pool.sharesPhysicalWith) : OrderedJson(nullptr);
        } else {
            item["usable_bytes"] = pool.usableBytes();
        }
        pools.push_back(std::move(item));
    }
    root["pools"] = std::move(pools);
    root["host_pool"] = machine.hostPoolIndex;
    if (file) {
        root["gpus"] = gpusJson(machine);
    } else {
        root["bandwidth_bytes_per_second"] = machine.bandwidthBytesPerSecond
                                                 ? OrderedJson(*machine.bandwidthBytesPerSecond)
                                                 : OrderedJson(nullptr);
        root["fp16_tflops"] = machine.fp16Tflops ? OrderedJson(*machine.fp16Tflops) : OrderedJson(nullptr);
        root["bios_split"] = nullptr; // always present in the report
    }
    if (machine.biosSplit) {
        OrderedJson offered = OrderedJson::array();
        for (std::uint64_t bytes : machine.biosSplit->offeredCarveOutBytes) {
            offered.push_back(size(bytes));
        }
        root["bios_split"] = {{"physical" + unit, size(machine.biosSplit->physicalBytes)},
                              {"carve_out" + unit, size(machine.biosSplit->carveOutBytes)},
                              {"offered_carve_out" + unit, std::move(offered)},
                              {"offered_source", machine.biosSplit->offeredSource}};
    }
    if (file) {
        if (machine.gttLimitBytes) {
            root["gtt_limit_mib"] = mibValue(*machine.gttLimitBytes);
        }
        if (machine.bandwidthBytesPerSecond) {
            root["bandwidth_gb_s"] = static_cast<double>(*machine.bandwidthBytesPerSecond) / 1e9;
        }
        if (!machine.bandwidthSource.empty()) {
            root["bandwidth_source"] = machine.bandwidthSource;
        }
        if (machine.fp16Tflops) {
            root["fp16_tflops"] = *machine.fp16Tflops;
        }
        if (machine.observedBackendFreeBytes) {
            root["observed_backend_free_mib"] = mibValue(*machine.observedBackendFreeBytes);
        }
    }
    root["sources"] = machine.sources;
    root["notes"] = machine.notes;
    return root;
}

} // namespace llamafit

// machineProfileJson (the explicit form of machineprofile.h) and the profile files.

#include "core/common/units.h"
#include "core/common/utf8path.h"
#include "core/machine/machineprofile.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace llamafit {

namespace {

using Json = nlohmann::ordered_json;

// Whole MiB as integers, anything else as the exact binary fraction (bytes / 2^20 is exact in
// a double below 2^53 bytes), so parse(write(m)) == m to the byte.
Json mibValue(std::uint64_t bytes) {
    if (bytes % kMiB == 0) {
        return bytes / kMiB;
    }
    return static_cast<double>(bytes) / static_cast<double>(kMiB);
}

Json mibList(const std::vector<std::uint64_t>& sizes) {
    Json list = Json::array();
    for (std::uint64_t size : sizes) {
        list.push_back(mibValue(size));
    }
    return list;
}

} // namespace

std::string machineProfileJson(const Machine& machine) {
    Json root;
    root["format"] = "llamafit-machine";
    root["version"] = 1;
    root["id"] = machine.id;
    root["name"] = machine.name;
    root["os"] = osKindName(machine.os);
    if (!machine.cpuName.empty()) {
        root["cpu"] = machine.cpuName;
    }
    Json pools = Json::array();
    for (const MemoryPool& pool : machine.pools) {
        Json item{{"name", pool.name}, {"kind", poolKindName(pool.kind)}};
        item["capacity_mib"] = pool.capacityKnown ? mibValue(pool.capacityBytes) : Json(nullptr);
        item["reserved_mib"] = mibValue(pool.reservedByOsBytes);
        item["shares_with"] = pool.sharesPhysicalWith ? Json(*pool.sharesPhysicalWith) : Json(nullptr);
        pools.push_back(std::move(item));
    }
    root["pools"] = std::move(pools);
    root["host_pool"] = machine.hostPoolIndex;
    Json gpus = Json::array();
    for (const MachineGpu& gpu : machine.gpus) {
        gpus.push_back({{"name", gpu.name},
                        {"model", gpu.model},
                        {"backend", backendName(gpu.backend)},
                        {"integrated", gpu.integrated},
                        {"pool", gpu.poolIndex}});
    }
    root["gpus"] = std::move(gpus);
    if (machine.biosSplit) {
        root["bios_split"] = {{"physical_mib", mibValue(machine.biosSplit->physicalBytes)},
                              {"carve_out_mib", mibValue(machine.biosSplit->carveOutBytes)},
                              {"offered_carve_out_mib", mibList(machine.biosSplit->offeredCarveOutBytes)},
                              {"offered_source", machine.biosSplit->offeredSource}};
    }
    if (machine.gttLimitBytes) {
        root["gtt_limit_mib"] = mibValue(*machine.gttLimitBytes);
    }
    if (machine.bandwidthBytesPerSecond) {
        root["bandwidth_gb_s"] = static_cast<double>(*machine.bandwidthBytesPerSecond) / 1e9;
    }
    if (!machine.bandwidthSource.empty()) {
        root["bandwidth_source"] = machine.bandwidthSource;
    }
    if (machine.observedBackendFreeBytes) {
        root["observed_backend_free_mib"] = mibValue(*machine.observedBackendFreeBytes);
    }
    root["sources"] = machine.sources;
    root["notes"] = machine.notes;
    return root.dump(2) + "\n";
}

Result<Machine> loadMachineProfile(const std::string& path) {
    std::ifstream file(pathFromUtf8(path), std::ios::binary);
    if (!file) {
        return makeError("machine.unreadable", "cannot open machine profile '" + path + "'");
    }
    std::ostringstream text;
    text << file.rdbuf();
    if (file.bad()) {
        return makeError("machine.unreadable", "cannot read machine profile '" + path + "'");
    }
    Result<Machine> machine = parseMachineProfile(text.str());
    if (!machine) {
        return makeError(machine.error().code, path + ": " + machine.error().message);
    }
    return machine;
}

Result<bool> saveMachineProfile(const Machine& machine, const std::string& path) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << machineProfileJson(machine);
    file.close();
    if (!file) {
        return makeError("machine.unwritable", "cannot write machine profile '" + path + "'");
    }
    return true;
}

} // namespace llamafit

// parseMachineProfile: the JSON format of machineprofile.h -> Machine. Strict: an unknown
// field is an error, so a typo ("reserve_mib") does not silently plan with 0.
#include "core/machine/machineprofile.h"

#include "core/common/units.h"
#include "core/machine/carveoutchoices.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace llamafit {

namespace {

using nlohmann::json;

// Reads fields of one JSON object; the first problem is kept and later reads do nothing.
class FieldReader {
  public:
    FieldReader(const json& object, std::string where, std::optional<Error>& error)
        : m_object(object), m_where(std::move(where)), m_error(error) {}

    bool checkFields(std::initializer_list<std::string_view> known) {
        if (!m_object.is_object()) {
            return fail("machine.bad-json", m_where + " must be a JSON object");
        }
        for (const auto& [key, value] : m_object.items()) {
            if (std::find(known.begin(), known.end(), key) == known.end()) {
                return fail("machine.bad-json", m_where + ": unknown field '" + key + "'");
            }
        }
        return true;
    }

    bool has(const char* key) const { return m_object.contains(key) && !m_object.at(key).is_null(); }

    std::string string(const char* key, bool required = true) {
        if (!present(key, required)) {
            return {};
        }
        const json& value = m_object.at(key);
        if (!value.is_string()) {
            fail("machine.bad-json", m_where + "." + key + " must be a string");
            return {};
        }
        return value.get<std::string>();
    }

    bool boolean(const char* key, bool fallback) {
        if (!present(key, false)) {
            return fallback;
        }
        if (!m_object.at(key).is_boolean()) {
            fail("machine.bad-json", m_where + "." + key + " must be true or false");
            return fallback;
        }
        return m_object.at(key).get<bool>();
    }

    // A size in MiB (may be fractional) as bytes.
    std::optional<std::uint64_t> mib(const char* key, bool required = true) {
        const std::optional<double> value = number(key, required, 0.0, 1e9);
        if (!value) {
            return std::nullopt;
        }
        return static_cast<std::uint64_t>(std::llround(*value * static_cast<double>(kMiB)));
    }

    // A whole number of bytes (device limits such as 4294967295 are not whole MiB).
    std::optional<std::uint64_t> bytes(const char* key) {
        const std::optional<double> value = number(key, false, 1.0, 9007199254740992.0); // 2^53
        if (value && *value != std::floor(*value)) {
            fail("machine.bad-value", m_where + "." + key + " must be a whole number of bytes");
            return std::nullopt;
        }
        return value ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*value)) : std::nullopt;
    }

    // The GPU's device limits (serversettings.h DeviceLimits); both optional.
    DeviceLimits limits() {
        return DeviceLimits{bytes("max_storage_buffer_range_bytes"), bytes("max_allocation_bytes")};
    }

    std::optional<double> number(const char* key, bool required, double min, double max) {
        if (!present(key, required)) {
            return std::nullopt;
        }
        const json& value = m_object.at(key);
        if (!value.is_number()) {
            fail("machine.bad-json", m_where + "." + key + " must be a number");
            return std::nullopt;
        }
        const double number = value.get<double>();
        if (!(number >= min && number <= max)) {
            fail("machine.bad-value", m_where + "." + key + " = " + value.dump() + " is outside " +
                                          std::to_string(static_cast<long long>(min)) + ".." +
                                          std::to_string(static_cast<long long>(max)));
            return std::nullopt;
        }
        return number;
    }

    std::optional<std::size_t> index(const char* key, std::size_t count, bool required = true) {
        const std::optional<double> value = number(key, required, 0, static_cast<double>(count) - 1);
        if (value && *value != std::floor(*value)) {
            fail("machine.bad-value", m_where + "." + key + " must be a whole index");
            return std::nullopt;
        }
        return value ? std::optional<std::size_t>(static_cast<std::size_t>(*value)) : std::nullopt;
    }

    std::vector<std::string> strings(const char* key) {
        std::vector<std::string> out;
        if (!present(key, false)) {
            return out;
        }
        for (const json& item : m_object.at(key)) {
            if (!item.is_string()) {
                fail("machine.bad-json", m_where + "." + key + " must be a list of strings");
                return {};
            }
            out.push_back(item.get<std::string>());
        }
        return out;
    }

    std::vector<std::uint64_t> mibList(const char* key) {
        std::vector<std::uint64_t> out;
        if (!present(key, false)) {
            return out;
        }
        const json& list = m_object.at(key);
        if (!list.is_array()) {
            fail("machine.bad-json", m_where + "." + key + " must be a list of MiB values");
            return {};
        }
        for (const json& item : list) {
            if (!item.is_number() || item.get<double>() <= 0) {
                fail("machine.bad-value",
                     m_where + "." + key + " holds " + item.dump() + ", not a positive size");
                return {};
            }
            out.push_back(
                static_cast<std::uint64_t>(std::llround(item.get<double>() * static_cast<double>(kMiB))));
        }
        return out;
    }

    template <typename Enum>
    Enum named(const char* key, std::optional<Enum> (*fromName)(std::string_view), Enum fallback) {
        const std::string name = string(key, false);
        if (name.empty()) {
            return fallback;
        }
        const std::optional<Enum> value = fromName(name);
        if (!value) {
            fail("machine.bad-value", m_where + "." + key + " '" + name + "' is not a known value");
            return fallback;
        }
        return *value;
    }

    const json& at(const char* key) const { return m_object.at(key); }
    bool failed() const { return m_error.has_value(); }

  private:
    bool present(const char* key, bool required) {
        if (m_error) {
            return false;
        }
        if (!has(key)) {
            if (required) {
                fail("machine.missing-field", m_where + ": missing '" + key + "'");
            }
            return false;
        }
        return true;
    }

    bool fail(const char* code, std::string message) {
        if (!m_error) {
            m_error = makeError(code, std::move(message));
        }
        return false;
    }

    const json& m_object;
    std::string m_where;
    std::optional<Error>& m_error;
};

void readApu(FieldReader& root, Machine& machine, std::optional<Error>& error) {
    FieldReader apu(root.at("apu"), "apu", error);
    if (!apu.checkFields({"gpu", "backend", "physical_mib", "carve_out_mib", "os_use_mib", "desktop_vram_mib",
                          "gtt_limit_mib", "gpu_uses_shared_memory", "offered_carve_out_mib",
                          "offered_source", "max_storage_buffer_range_bytes", "max_allocation_bytes"})) {
        return;
    }
    ApuConfig config;
    config.id = machine.id;
    config.name = machine.name;
    config.os = machine.os;
    config.cpuName = machine.cpuName;
    config.gpuModel = apu.string("gpu");
    config.backend = apu.named("backend", backendFromName, Backend::Vulkan);
    config.physicalBytes = apu.mib("physical_mib").value_or(0);
    config.carveOutBytes = apu.mib("carve_out_mib").value_or(0);
    config.osUseBytes = apu.mib("os_use_mib").value_or(0);
    config.desktopVramBytes = apu.mib("desktop_vram_mib", false).value_or(0);
    config.gttLimitBytes = apu.mib("gtt_limit_mib", false);
    config.gpuUsesSharedMemory = apu.boolean("gpu_uses_shared_memory", false);
    config.offeredCarveOutBytes = apu.mibList("offered_carve_out_mib");
    config.offeredSource = apu.string("offered_source", false);
    config.gpuLimits = apu.limits();
    if (apu.failed()) {
        return;
    }
    if (config.carveOutBytes >= config.physicalBytes) {
        error = makeError("machine.bad-value", "apu.carve_out_mib must be smaller than apu.physical_mib");
        return;
    }
    if (config.offeredCarveOutBytes.empty()) {
        const CarveOutChoices known = knownCarveOutChoices(
            apuFamilyFromName(machine.cpuName + " " + config.gpuModel), config.physicalBytes);
        config.offeredCarveOutBytes = known.bytes;
        config.offeredSource = known.source;
    }
    Machine built = makeApuMachine(config);
    built.bandwidthBytesPerSecond = machine.bandwidthBytesPerSecond;
    built.bandwidthSource = machine.bandwidthSource;
    built.fp16Tflops = machine.fp16Tflops;
    built.observedBackendFreeBytes = machine.observedBackendFreeBytes;
    built.sources = machine.sources;
    built.notes = machine.notes;
    machine = std::move(built);
}

void readPools(FieldReader& root, Machine& machine, std::optional<Error>& error) {
    const json& pools = root.at("pools");
    if (!pools.is_array() || pools.empty()) {
        error = makeError("machine.bad-json", "pools must be a non-empty list");
        return;
    }
    for (std::size_t i = 0; i < pools.size() && !error; ++i) {
        FieldReader pool(pools[i], "pools[" + std::to_string(i) + "]", error);
        if (!pool.checkFields({"name", "kind", "capacity_mib", "reserved_mib", "shares_with"})) {
            return;
        }
        MemoryPool value;
        value.name = pool.string("name");
        value.kind = pool.named("kind", poolKindFromName, PoolKind::HostRam);
        // null = no source gave the size; a missing field is a mistake.
        if (!pool.failed() && !pools[i].contains("capacity_mib")) {
            error = makeError("machine.missing-field",
                              "pools[" + std::to_string(i) + "]: missing 'capacity_mib'");
            return;
        }
        value.capacityKnown = pool.has("capacity_mib");
        value.capacityBytes = pool.mib("capacity_mib", false).value_or(0);
        value.reservedByOsBytes = pool.mib("reserved_mib", false).value_or(0);
        value.sharesPhysicalWith = pool.index("shares_with", pools.size(), false);
        machine.pools.push_back(value);
    }
    machine.hostPoolIndex = root.index("host_pool", machine.pools.size()).value_or(0);
    if (!error && machine.pools[machine.hostPoolIndex].kind != PoolKind::HostRam) {
        error = makeError("machine.bad-value", "host_pool must name a host-ram pool");
        return;
    }
    if (root.has("gpus")) {
        const json& gpus = root.at("gpus");
        for (std::size_t i = 0; i < gpus.size() && !error; ++i) {
            FieldReader gpu(gpus[i], "gpus[" + std::to_string(i) + "]", error);
            if (!gpu.checkFields({"name", "model", "backend", "integrated", "pool",
                                  "max_storage_buffer_range_bytes", "max_allocation_bytes"})) {
                return;
            }
            MachineGpu value;
            value.name = gpu.string("name");
            value.model = gpu.string("model", false);
            value.backend = gpu.named("backend", backendFromName, Backend::Vulkan);
            value.integrated = gpu.boolean("integrated", false);
            value.poolIndex = gpu.index("pool", machine.pools.size()).value_or(0);
            value.limits = gpu.limits();
            machine.gpus.push_back(value);
        }
    }
    if (root.has("bios_split") && !error) {
        FieldReader split(root.at("bios_split"), "bios_split", error);
        if (!split.checkFields(
                {"physical_mib", "carve_out_mib", "offered_carve_out_mib", "offered_source"})) {
            return;
        }
        BiosSplit value;
        value.physicalBytes = split.mib("physical_mib").value_or(0);
        value.carveOutBytes = split.mib("carve_out_mib").value_or(0);
        value.offeredCarveOutBytes = split.mibList("offered_carve_out_mib");
        value.offeredSource = split.string("offered_source", false);
        machine.biosSplit = value;
    }
    machine.gttLimitBytes = root.mib("gtt_limit_mib", false);
}

} // namespace

Result<Machine> parseMachineProfile(std::string_view text) {
    const json document = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) {
        return makeError("machine.bad-json", "not valid JSON");
    }
    std::optional<Error> error;
    FieldReader root(document, "machine profile", error);
    if (!root.checkFields({"format", "version", "id", "name", "os", "cpu", "apu", "pools", "host_pool",
                           "gpus", "bios_split", "gtt_limit_mib", "bandwidth_gb_s", "bandwidth_source",
                           "fp16_tflops", "observed_backend_free_mib", "sources", "notes", "comment"})) {
        return *error;
    }
    if (root.string("format") != "llamafit-machine" && !error) {
        return makeError("machine.bad-value", "format must be \"llamafit-machine\"");
    }
    (void)root.number("version", true, 1, 1);
    Machine machine;
    machine.id = root.string("id");
    machine.name = root.string("name");
    machine.os = root.named("os", osKindFromName, OsKind::Unknown);
    machine.cpuName = root.string("cpu", false);
    if (const std::optional<double> gbps = root.number("bandwidth_gb_s", false, 0.001, 100000)) {
        machine.bandwidthBytesPerSecond = static_cast<std::uint64_t>(std::llround(*gbps * 1e9));
    }
    machine.bandwidthSource = root.string("bandwidth_source", false);
    machine.fp16Tflops = root.number("fp16_tflops", false, 0.001, 100000);
    machine.observedBackendFreeBytes = root.mib("observed_backend_free_mib", false);
    machine.sources = root.strings("sources");
    machine.notes = root.strings("notes");
    if (error) {
        return *error;
    }
    if (root.has("apu") == root.has("pools")) {
        return makeError("machine.bad-json", "a machine profile needs either 'apu' or 'pools' (not both)");
    }
    if (root.has("apu") && (root.has("gpus") || root.has("host_pool") || root.has("bios_split"))) {
        return makeError("machine.bad-json", "the 'apu' form describes its GPU, pools and split itself: drop "
                                             "'gpus', 'host_pool' and 'bios_split'");
    }
    if (root.has("apu")) {
        readApu(root, machine, error);
    } else {
        readPools(root, machine, error);
    }
    if (error) {
        return *error;
    }
    return machine;
}

} // namespace llamafit

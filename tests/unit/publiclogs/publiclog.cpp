#include "tests/unit/publiclogs/publiclog.h"

#include "core/sizing/llamabuild.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

namespace llamafit::test {
namespace {

using nlohmann::json;

Result<Backend> backendNamed(const std::string& name) {
    if (name == "cuda") {
        return Backend::Cuda;
    }
    if (name == "rocm") {
        return Backend::Rocm;
    }
    if (name == "vulkan") {
        return Backend::Vulkan;
    }
    if (name == "metal") {
        return Backend::Metal;
    }
    return makeError("test.bad-manifest", "unknown backend \"" + name + "\"");
}

Result<PublicLog> entryOf(const json& entry) {
    PublicLog log;
    try {
        log.logFile = entry.at("log").get<std::string>();
        auto backend = backendNamed(entry.at("backend").get<std::string>());
        if (!backend) {
            return backend.error();
        }
        log.backend = *backend;
        log.gpu = entry.at("gpu").get<std::string>();
        log.build = entry.at("build").get<std::string>();
        log.source = entry.at("source").get<std::string>();
        const json& model = entry.at("model");
        log.specFile = model.value("spec", "");
        log.card = model.value("card", "");
        log.args = entry.at("args").get<std::vector<std::string>>();
        for (const json& device : entry.at("devices")) {
            log.devices.push_back(
                {device.at("name").get<std::string>(), device.at("memory_mib").get<std::uint64_t>()});
        }
        // A log's own build number decides the rules it is checked with (core/sizing/llamabuild.h);
        // a log without one is dated by the master of its day, or by hand with its generation.
        if (entry.contains("llama_build")) {
            if (entry.contains("generation")) {
                return makeError("test.bad-manifest",
                                 log.logFile +
                                     ": give llama_build or generation, not both: the build decides");
            }
            log.llamaBuild = entry.at("llama_build").get<std::uint32_t>();
            log.buildDated = entry.value("build_dated", "");
        } else {
            const std::string generation = entry.value("generation", "current");
            // The first build of each generation (llamabuild.h).
            const std::map<std::string, std::uint32_t> firstBuilds = {
                {"current", kMixedInputBuild},
                {"before-mixed-input", kF16FlashMaskBuild},
                {"before-june-2026", kInputSelectBuild}};
            if (firstBuilds.count(generation) == 0) {
                return makeError("test.bad-manifest", log.logFile +
                                                          ": generation is current, before-mixed-input or "
                                                          "before-june-2026");
            }
            log.llamaBuild = firstBuilds.at(generation);
            log.undatedGeneration = generation;
        }
        const std::string outputs = entry.value("output_reserve", "per-slot");
        if (outputs != "per-slot" && outputs != "per-batch") {
            return makeError("test.bad-manifest", log.logFile + ": output_reserve is per-slot or per-batch");
        }
        log.outputReserve = outputs == "per-slot" ? OutputReserve::PerSlot : OutputReserve::PerBatch;
        log.weightsTolerance = entry.value("weights_tolerance", 0.10);
        log.reproduce = entry.value("reproduce", true);
        log.reason = entry.value("reason", "");
        log.deviceComputeReason = entry.value("device_compute_reason", "");
        log.hostComputeReason = entry.value("host_compute_reason", "");
    } catch (const json::exception& error) {
        return makeError("test.bad-manifest", "entry " + entry.dump().substr(0, 80) + ": " + error.what());
    }
    if (log.specFile.empty() == log.card.empty()) {
        return makeError("test.bad-manifest", log.logFile + ": model needs exactly one of spec and card");
    }
    if (!log.reproduce && log.reason.empty()) {
        return makeError("test.bad-manifest", log.logFile + ": a log not reproduced needs its reason");
    }
    return log;
}

} // namespace

Result<std::vector<PublicLog>> readPublicLogManifest(const std::string& directory) {
    const std::string path = directory + "/manifest.json";
    std::ifstream in(path);
    if (!in) {
        return makeError("test.read-failed", "cannot read " + path);
    }
    std::stringstream text;
    text << in.rdbuf();
    const json manifest = json::parse(text.str(), nullptr, false);
    if (manifest.is_discarded() || !manifest.contains("logs") || !manifest.at("logs").is_array()) {
        return makeError("test.bad-manifest", path + ": not JSON with a \"logs\" array");
    }
    std::vector<PublicLog> logs;
    for (const json& entry : manifest.at("logs")) {
        auto log = entryOf(entry);
        if (!log) {
            return log.error();
        }
        logs.push_back(std::move(*log));
    }
    return logs;
}

std::string_view backendLabel(Backend backend) {
    switch (backend) {
    case Backend::Cuda:
        return "CUDA";
    case Backend::Rocm:
        return "ROCm";
    case Backend::Vulkan:
        return "Vulkan";
    case Backend::Metal:
        return "Metal";
    default:
        return "other";
    }
}

} // namespace llamafit::test

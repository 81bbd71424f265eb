// The argv of a launch, spelled from the flag table for one build; see buildargv.h.

#include "core/server/buildargv.h"

#include "core/flags/flagtable.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace llamafit {
namespace {

// 0.7.0's spelling of the build-specific rules: with no capabilities (an unprobed binary)
// every row is spelled as the table's first spelling and nothing is checked.
using Capabilities = const BuildCapabilities*;

// The first spelling of `row` the build lists, or empty; the row's first without a build.
std::string_view knownSpelling(const FlagRow& row, Capabilities caps) {
    if (caps == nullptr) {
        return row.canonicalSpelling();
    }
    for (std::string_view spelling : row.allSpellings()) {
        if (caps->knows(spelling)) {
            return spelling;
        }
    }
    return {};
}

std::string shownFlag(const FlagRow& row, const std::string& value) {
    return std::string(row.canonicalSpelling()) + (value.empty() ? "" : " " + value);
}

// What a setting is called in the messages of a refused launch.
std::string_view settingLabel(Setting setting) {
    switch (setting) {
    case Setting::Context:
        return "context size";
    case Setting::Parallel:
        return "parallel slots";
    case Setting::KvUnified:
        return "unified KV cache";
    case Setting::CacheTypeK:
        return "K cache type";
    case Setting::CacheTypeV:
        return "V cache type";
    case Setting::FlashAttention:
        return "flash attention";
    case Setting::Batch:
        return "batch size";
    case Setting::Ubatch:
        return "micro-batch size";
    case Setting::GpuLayers:
        return "GPU layers";
    case Setting::SwaFull:
        return "full-size SWA cache";
    case Setting::KvOffload:
        return "KV cache kept on the host";
    case Setting::TensorSplit:
        return "tensor split";
    case Setting::TensorOverrides:
        return "tensor override";
    case Setting::CpuMoe:
        return "MoE experts on the CPU";
    case Setting::CpuMoeLayers:
        return "MoE layers on the CPU";
    case Setting::LoadMode:
        return "load mode";
    case Setting::Repack:
        return "no weight repacking";
    case Setting::CacheRam:
        return "prompt cache RAM";
    case Setting::ContextCheckpoints:
        return "context checkpoints";
    case Setting::RpcServers:
        return "RPC servers";
    case Setting::SpeculativeType:
        return "speculative decoding";
    case Setting::SpeculativeDraftMax:
        return "tokens drafted per step";
    case Setting::SpeculativeDraftUbatch:
        return "draft micro-batch";
    case Setting::LoraAdapters:
        return "LoRA adapters";
    case Setting::DraftModel:
        return "draft model";
    case Setting::DraftGpuLayers:
        return "draft model's GPU layers";
    case Setting::DraftCacheTypeK:
        return "draft model's K cache type";
    case Setting::DraftCacheTypeV:
        return "draft model's V cache type";
    case Setting::Projector:
        return "vision projector";
    case Setting::ProjectorOffload:
        return "projector offload";
    case Setting::ImageMinTokens:
        return "minimum image tokens";
    case Setting::ImageMaxTokens:
        return "maximum image tokens";
    }
    return settingId(setting);
}

Error unsupported(const FlagRow& row, const std::string& value, const BuildCapabilities& caps,
                  std::string_view why) {
    const std::string_view setting = row.setting ? settingLabel(*row.setting) : row.canonicalSpelling();
    std::vector<Setting> settings;
    if (row.setting) {
        settings.push_back(*row.setting);
    }
    return makeError("build.unsupported-setting",
                     std::string(setting) + " (" + shownFlag(row, value) + ") cannot be passed to " +
                         caps.label() + ": " + std::string(why) +
                         "; keep the default or use a newer llama-server",
                     std::move(settings), std::string(row.canonicalSpelling()));
}

bool looksLikeFlag(const std::string& word) {
    return word.size() >= 2 && word[0] == '-' && std::isdigit(static_cast<unsigned char>(word[1])) == 0 &&
           word[1] != '.';
}

// Whether `words` hold a flag of the row `id` (any spelling, `--flag=value` too).
bool holdsFlag(const std::vector<std::string>& words, FlagId id) {
    const FlagRow& row = flagRow(id);
    return std::any_of(words.begin(), words.end(),
                       [&](const std::string& word) { return row.hasSpelling(flagName(word)); });
}

// One occurrence of a memory row, spelled for the build; appends to out.
std::optional<Error> spell(const FlagRow& row, const FlagValues& values, Capabilities caps, BuildArgv& out) {
    const std::string value = values.empty() ? std::string() : values.front();
    auto note = [&](const std::string& spelled) {
        out.notes.push_back(shownFlag(row, value) + " spelled " +
                            (spelled.empty() ? "as nothing (the build's default)" : spelled) + " for " +
                            caps->label());
    };
    if (caps != nullptr) {
        // -lm: 0.7.0's load mode; older builds have --no-mmap and map by default.
        if (row.setting == Setting::LoadMode && !caps->hasLoadMode) {
            const std::string_view noMmap = knownSpelling(flagRow(FlagId::NoMmap), caps);
            if (value == "none" && !noMmap.empty()) {
                out.args.emplace_back(noMmap);
                note(std::string(noMmap));
                return std::nullopt;
            }
            if (value == "mmap") {
                note("");
                return std::nullopt;
            }
            return unsupported(row, value, *caps, "it has neither -lm/--load-mode nor --no-mmap");
        }
        // -fa: a switch (enable) before `-fa on|off|auto`; off was that switch's default.
        if (row.setting == Setting::FlashAttention && !caps->flashAttnTakesValue &&
            !knownSpelling(row, caps).empty()) {
            if (value == "on") {
                out.args.emplace_back(knownSpelling(row, caps));
                note(std::string(knownSpelling(row, caps)));
            } else {
                note(""); // "off"; "auto" is never written (it is the default, no flag)
            }
            return std::nullopt;
        }
        if ((row.setting == Setting::CacheTypeK || row.setting == Setting::CacheTypeV) &&
            !caps->cacheTypes.empty() &&
            std::find(caps->cacheTypes.begin(), caps->cacheTypes.end(), value) == caps->cacheTypes.end()) {
            return unsupported(row, value, *caps, "its cache types are the ones --help lists");
        }
    }
    std::string outValue = value;
    if (caps != nullptr && row.setting == Setting::GpuLayers && !caps->gpuLayersTakesAuto &&
        (value == "auto" || value == "all")) {
        if (value == "auto") {
            return unsupported(row, value, *caps, "its -ngl takes only a number");
        }
        outValue = "999"; // more layers than any model has: all of them
    }
    const std::string_view flag = knownSpelling(row, caps);
    if (flag.empty()) {
        return unsupported(row, value, *caps, "its --help does not list the option");
    }
    out.args.emplace_back(flag);
    if (!values.empty()) {
        out.args.push_back(outValue);
        out.args.insert(out.args.end(), values.begin() + 1, values.end());
    }
    if (flag != row.canonicalSpelling() || outValue != value) {
        note(std::string(flag) + (values.empty() ? "" : " " + outValue));
    }
    return std::nullopt;
}

// -m MODEL, each setting from its row, the extra words, then what the options ask for.
Result<BuildArgv> spellServerArgv(const ServerSettings& settings, const std::string& modelPath,
                                  Capabilities caps, const LaunchArgvOptions& options) {
    BuildArgv out;
    const FlagRow& model = flagRow(FlagId::Model);
    const std::string_view modelFlag = knownSpelling(model, caps);
    out.args = {std::string(modelFlag.empty() ? model.canonicalSpelling() : modelFlag), modelPath};
    for (const FlagRow& row : flagTable()) {
        if (row.write == nullptr) {
            continue;
        }
        for (const FlagValues& values : row.write(settings)) {
            if (std::optional<Error> error = spell(row, values, caps, out)) {
                return *error;
            }
        }
    }
    for (const std::string& word : options.extraArgs) {
        if (caps != nullptr && looksLikeFlag(word) && !caps->knows(flagName(word))) {
            return makeError("build.unknown-flag",
                             word + " is not an option of " + caps->label() +
                                 " (its --help does not list it)",
                             {}, std::string(flagName(word)));
        }
    }
    out.args.insert(out.args.end(), options.extraArgs.begin(), options.extraArgs.end());
    if (!options.host.empty()) {
        out.args.emplace_back(flagRow(FlagId::Host).canonicalSpelling());
        out.args.push_back(options.host);
    }
    if (options.port) {
        out.args.emplace_back(flagRow(FlagId::Port).canonicalSpelling());
        out.args.push_back(std::to_string(*options.port));
    }
    if (options.metrics) {
        const std::string_view metrics = knownSpelling(flagRow(FlagId::Metrics), caps);
        if (metrics.empty()) {
            return makeError("build.unsupported-setting", caps->label() + " has no --metrics endpoint", {},
                             std::string(flagRow(FlagId::Metrics).canonicalSpelling()));
        }
        out.args.emplace_back(metrics);
    }
    if (options.logVerbosity) {
        const FlagRow& verbosity = flagRow(FlagId::LogVerbosity);
        const std::string_view flag = knownSpelling(verbosity, caps);
        if (flag.empty()) {
            out.notes.push_back(std::string(verbosity.canonicalSpelling()) + " " +
                                std::to_string(*options.logVerbosity) + " left out: " + caps->label() +
                                " has no verbosity option, so the buffer-size lines may be missing");
        } else {
            out.args.emplace_back(flag);
            out.args.push_back(std::to_string(*options.logVerbosity));
        }
    }
    return out;
}

} // namespace

LaunchArgvOptions launchArgvOptions(const std::string& host, std::optional<std::uint16_t> port,
                                    std::vector<std::string> extraArgs) {
    LaunchArgvOptions options;
    options.host = holdsFlag(extraArgs, FlagId::Host) ? std::string() : host;
    options.port = holdsFlag(extraArgs, FlagId::Port) ? std::nullopt : port;
    options.metrics = !holdsFlag(extraArgs, FlagId::Metrics);
    if (holdsFlag(extraArgs, FlagId::LogVerbosity)) {
        options.logVerbosity.reset();
    }
    options.extraArgs = std::move(extraArgs);
    return options;
}

Result<BuildArgv> serverArgvForBuild(const ServerSettings& settings, const std::string& modelPath,
                                     const BuildCapabilities& caps, const LaunchArgvOptions& options) {
    return spellServerArgv(settings, modelPath, &caps, options);
}

std::vector<std::string> unprobedServerArgv(const std::string& modelPath, const ServerSettings& settings,
                                            const LaunchArgvOptions& options) {
    // Without a build nothing is refused: every row has its 0.7.0 spelling.
    return spellServerArgv(settings, modelPath, nullptr, options)->args;
}

} // namespace llamafit

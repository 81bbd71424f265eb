// Re-spelling of ServerSettings for one llama-server build; see buildargv.h.

#include "core/server/buildargv.h"

#include "core/flags/serverargs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace llamafit {
namespace {

// Every spelling toServerArgs emits, with the other spellings llama.cpp has used for the
// same option (common/arg.cpp), and what the setting is called in messages.
struct Spelling {
    std::string_view flag; // as toServerArgs writes it
    bool takesValue;
    std::array<std::string_view, 3> alternatives;
    std::string_view setting;
};

constexpr std::array kSpellings{
    Spelling{"-c", true, {"--ctx-size"}, "context size"},
    Spelling{"-np", true, {"--parallel"}, "parallel slots"},
    Spelling{"-kvu", false, {"--kv-unified"}, "unified KV cache"},
    Spelling{"-no-kvu", false, {"--no-kv-unified"}, "per-slot KV cache"},
    Spelling{"-ctk", true, {"--cache-type-k"}, "K cache type"},
    Spelling{"-ctv", true, {"--cache-type-v"}, "V cache type"},
    Spelling{"-fa", true, {"--flash-attn"}, "flash attention"},
    Spelling{"-b", true, {"--batch-size"}, "batch size"},
    Spelling{"-ub", true, {"--ubatch-size"}, "micro-batch size"},
    Spelling{"-ngl", true, {"--gpu-layers", "--n-gpu-layers"}, "GPU layers"},
    Spelling{"--swa-full", false, {}, "full-size SWA cache"},
    Spelling{"-nkvo", false, {"--no-kv-offload"}, "KV cache kept on the host"},
    Spelling{"-ts", true, {"--tensor-split"}, "tensor split"},
    Spelling{"-ot", true, {"--override-tensor"}, "tensor override"},
    Spelling{"-cmoe", false, {"--cpu-moe"}, "MoE experts on the CPU"},
    Spelling{"-ncmoe", true, {"--n-cpu-moe"}, "MoE layers on the CPU"},
    Spelling{"-lm", true, {"--load-mode"}, "load mode"},
    Spelling{"-nr", false, {"--no-repack"}, "no weight repacking"},
    Spelling{"-cram", true, {"--cache-ram"}, "prompt cache RAM"},
    Spelling{"-ctxcp", true, {"--ctx-checkpoints", "--swa-checkpoints"}, "context checkpoints"},
};

const Spelling* findSpelling(std::string_view flag) {
    for (const Spelling& spelling : kSpellings) {
        if (spelling.flag == flag) {
            return &spelling;
        }
    }
    return nullptr;
}

// The first spelling of the option the build lists, or empty.
std::string_view knownSpelling(const Spelling& spelling, const BuildCapabilities& caps) {
    if (caps.knows(spelling.flag)) {
        return spelling.flag;
    }
    for (std::string_view alternative : spelling.alternatives) {
        if (!alternative.empty() && caps.knows(alternative)) {
            return alternative;
        }
    }
    return {};
}

Error unsupported(const Spelling& spelling, const std::string& value, const BuildCapabilities& caps,
                  std::string_view why) {
    std::string shown = std::string(spelling.flag) + (value.empty() ? "" : " " + value);
    return makeError("build.unsupported-setting",
                     std::string(spelling.setting) + " (" + shown + ") cannot be passed to " + caps.label() +
                         ": " + std::string(why) + "; keep the default or use a newer llama-server");
}

bool looksLikeFlag(const std::string& word) {
    return word.size() >= 2 && word[0] == '-' && std::isdigit(static_cast<unsigned char>(word[1])) == 0 &&
           word[1] != '.';
}

// One flag (and its value) of toServerArgs, re-spelled; appends to out.
Result<bool> respell(const Spelling& spelling, const std::string& value, const BuildCapabilities& caps,
                     BuildArgv& out) {
    const std::string shown = std::string(spelling.flag) + (value.empty() ? "" : " " + value);
    auto note = [&](const std::string& spelled) {
        out.notes.push_back(shown + " spelled " +
                            (spelled.empty() ? "as nothing (the build's default)" : spelled) + " for " +
                            caps.label());
    };
    // -lm: 0.7.0's load mode; older builds have --no-mmap and map by default.
    if (spelling.flag == "-lm" && !caps.hasLoadMode) {
        if (value == "none" && caps.knows("--no-mmap")) {
            out.args.emplace_back("--no-mmap");
            note("--no-mmap");
            return true;
        }
        if (value == "mmap") {
            note("");
            return true;
        }
        return unsupported(spelling, value, caps, "it has neither -lm/--load-mode nor --no-mmap");
    }
    // -fa: a switch (enable) before `-fa on|off|auto`; off was that switch's default.
    if (spelling.flag == "-fa" && !caps.flashAttnTakesValue && knownSpelling(spelling, caps) != "") {
        if (value == "on") {
            out.args.emplace_back(knownSpelling(spelling, caps));
            note(std::string(knownSpelling(spelling, caps)));
        } else {
            note(""); // "off"; "auto" is never written (it is the default, no flag)
        }
        return true;
    }
    if ((spelling.flag == "-ctk" || spelling.flag == "-ctv") && !caps.cacheTypes.empty() &&
        std::find(caps.cacheTypes.begin(), caps.cacheTypes.end(), value) == caps.cacheTypes.end()) {
        return unsupported(spelling, value, caps, "its cache types are the ones --help lists");
    }
    std::string outValue = value;
    if (spelling.flag == "-ngl" && !caps.gpuLayersTakesAuto && (value == "auto" || value == "all")) {
        if (value == "auto") {
            return unsupported(spelling, value, caps, "its -ngl takes only a number");
        }
        outValue = "999"; // more layers than any model has: all of them
    }
    const std::string_view flag = knownSpelling(spelling, caps);
    if (flag.empty()) {
        return unsupported(spelling, value, caps, "its --help does not list the option");
    }
    out.args.emplace_back(flag);
    if (spelling.takesValue) {
        out.args.push_back(outValue);
    }
    if (flag != spelling.flag || outValue != value) {
        note(std::string(flag) + (spelling.takesValue ? " " + outValue : ""));
    }
    return true;
}

} // namespace

Result<BuildArgv> serverArgvForBuild(const ServerSettings& settings, const std::string& modelPath,
                                     const BuildCapabilities& caps, const LaunchArgvOptions& options) {
    BuildArgv out;
    out.args = {caps.knows("-m") || !caps.knows("--model") ? "-m" : "--model", modelPath};
    const std::vector<std::string> canonical = toServerArgs(settings);
    for (std::size_t i = 0; i < canonical.size(); ++i) {
        const Spelling* spelling = findSpelling(canonical[i]);
        if (spelling == nullptr) {
            return makeError("build.unsupported-setting", "internal: no build spelling for " + canonical[i] +
                                                              " (core/server/buildargv.cpp)");
        }
        std::string value;
        if (spelling->takesValue && i + 1 < canonical.size()) {
            value = canonical[++i];
        }
        auto done = respell(*spelling, value, caps, out);
        if (!done.ok()) {
            return done.error();
        }
    }
    for (const std::string& word : options.extraArgs) {
        if (looksLikeFlag(word) && !caps.knows(word.substr(0, word.find('=')))) {
            return makeError("build.unknown-flag", word + " is not an option of " + caps.label() +
                                                       " (its --help does not list it)");
        }
    }
    out.args.insert(out.args.end(), options.extraArgs.begin(), options.extraArgs.end());
    auto has = [&](std::initializer_list<std::string_view> names) {
        return std::any_of(options.extraArgs.begin(), options.extraArgs.end(), [&](const std::string& word) {
            return std::find(names.begin(), names.end(), word) != names.end();
        });
    };
    if (!options.host.empty() && !has({"--host"})) {
        out.args.insert(out.args.end(), {"--host", options.host});
    }
    if (options.port && !has({"--port"})) {
        out.args.insert(out.args.end(), {"--port", std::to_string(*options.port)});
    }
    if (options.metrics && !has({"--metrics"})) {
        if (!caps.knows("--metrics")) {
            return makeError("build.unsupported-setting", caps.label() + " has no --metrics endpoint");
        }
        out.args.emplace_back("--metrics");
    }
    if (options.logVerbosity && !has({"-lv", "--verbosity", "--log-verbosity"})) {
        const std::string_view flag = caps.knows("-lv")           ? "-lv"
                                      : caps.knows("--verbosity") ? "--verbosity"
                                                                  : "";
        if (flag.empty()) {
            out.notes.push_back("-lv " + std::to_string(*options.logVerbosity) +
                                " left out: " + caps.label() +
                                " has no verbosity option, so the buffer-size lines may be missing");
        } else {
            out.args.emplace_back(flag);
            out.args.push_back(std::to_string(*options.logVerbosity));
        }
    }
    return out;
}

} // namespace llamafit

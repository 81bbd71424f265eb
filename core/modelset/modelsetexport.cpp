// A model set as a router preset INI and a llama-swap config; see modelsetexport.h.
#include "core/modelset/modelsetexport.h"

#include "core/server/exports.h"
#include "core/server/exposure.h"

#include <algorithm>

namespace llamafit {

namespace {

// Each member as one launch for the single-model exporters. The router and llama-swap own the
// address, so a member's flags may not bind the server beyond this computer.
Result<std::vector<ExportSpec>> memberSpecs(const SetExport& set) {
    std::vector<ExportSpec> specs;
    for (const SetExportMember& member : set.members) {
        if (member.modelPath.empty()) {
            return makeError("export.no-model-file", "model '" + member.name +
                                                         "' is a built-in card: the router and llama-swap "
                                                         "need a GGUF file (give its path in \"model\")");
        }
        Result<std::vector<std::string>> extraArgs = guardExposure("127.0.0.1", member.extraArgs, {});
        if (!extraArgs) {
            return extraArgs.error();
        }
        ExportSpec spec;
        spec.serverBinary = set.serverBinary;
        spec.modelPath = member.modelPath;
        spec.settings = member.settings;
        spec.extraArgs = std::move(*extraArgs);
        spec.name = member.name;
        specs.push_back(std::move(spec));
    }
    return specs;
}

std::string countWord(std::size_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

// The line that says what run-time growth costs, when it is what limits the set.
std::string growthLine(const SetExport& set, const std::string& comment) {
    if (set.loadableModelsMax <= set.safeModelsMax) {
        return {};
    }
    return comment + "Right after load any " + std::to_string(set.loadableModelsMax) +
           " fit; the prompt caches (--cache-ram) and checkpoints they may grow to keep it to " +
           std::to_string(set.safeModelsMax) + ".\n";
}

// The lines that say what --models-max is safe and why, behind `comment` ("; " or "# ").
std::string modelsMaxLines(const SetExport& set, const std::string& comment) {
    const std::size_t total = set.members.size();
    if (set.safeModelsMax == 0) {
        return comment + "Not every model fits alone on " + set.machineName +
               ": even --models-max 1 may fail to load the largest.\n" + growthLine(set, comment);
    }
    if (set.safeModelsMax == total) {
        return comment + "All " + countWord(total, "model fits", "models fit") + " together on " +
               set.machineName + ".\n";
    }
    return comment + "Any " + std::to_string(set.safeModelsMax) + " of these " + std::to_string(total) +
           " models fit together on " + set.machineName + ", not every " +
           std::to_string(set.safeModelsMax + 1) + ".\n" + growthLine(set, comment);
}

} // namespace

std::size_t exportedModelsMax(const SetExport& set) {
    return std::max<std::size_t>(1, set.safeModelsMax);
}

Result<std::string> exportSetPresetIni(const SetExport& set) {
    Result<std::vector<ExportSpec>> specs = memberSpecs(set);
    if (!specs) {
        return specs.error();
    }
    const std::string modelsMax = std::to_string(exportedModelsMax(set));
    // llama.cpp common/preset.cpp: `version = 1` before the first section; each section is a
    // model, its keys the flags without dashes. Comment lines start with ';'.
    std::string ini = "; llama-server router preset for the model set '" + set.setName +
                      "', exported by LlamaFit.\n" + modelsMaxLines(set, "; ") + "; --models-max " +
                      modelsMax + " keeps at most that many loaded at once:\n;   " +
                      quotePosixArgument(set.serverBinary) + " --models-preset " +
                      quotePosixArgument(set.presetFileName) + " --models-max " + modelsMax + "\n" +
                      "version = 1\n";
    for (const ExportSpec& spec : *specs) {
        Result<std::string> section = exportPresetIni(spec);
        if (!section) {
            return section.error();
        }
        ini += "\n" + *section;
    }
    return ini;
}

Result<std::string> exportSetLlamaSwapYaml(const SetExport& set) {
    Result<std::vector<ExportSpec>> specs = memberSpecs(set);
    if (!specs) {
        return specs.error();
    }
    std::string yaml = "# llama-swap config for the model set '" + set.setName +
                       "', exported by LlamaFit.\n" + modelsMaxLines(set, "# ") + "models:\n";
    for (const ExportSpec& spec : *specs) {
        Result<std::string> entry = llamaSwapModelEntry(spec);
        if (!entry) {
            return entry.error();
        }
        yaml += *entry;
    }
    if (set.fittingGroup.empty()) {
        return yaml;
    }
    // swap: false keeps every member of the group loaded together (llama-swap's groups).
    yaml += "groups:\n  " + yamlQuoted(set.setName) + ":\n";
    std::string leftOut;
    for (std::size_t i = 0; i < specs->size(); ++i) {
        if (std::find(set.fittingGroup.begin(), set.fittingGroup.end(), i) == set.fittingGroup.end()) {
            leftOut += (leftOut.empty() ? "" : ", ") + (*specs)[i].name;
        }
    }
    if (!leftOut.empty()) {
        yaml += "    # left out, they do not fit together with these: " + leftOut + "\n";
    }
    yaml += "    swap: false\n    exclusive: true\n    members:\n";
    for (const std::size_t index : set.fittingGroup) {
        yaml += "      - " + yamlQuoted(specs->at(index).name) + "\n";
    }
    return yaml;
}

} // namespace llamafit

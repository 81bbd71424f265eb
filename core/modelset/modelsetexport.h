#pragma once
// A planned model set as the files people run it from: a `--models-preset` INI for
// llama-server's router (version = 1, one section per model with `model = /abs/path` and its
// flags as keys; core/server/exports.h writes each section) with the safe --models-max stated
// and the command to run, and a llama-swap config (`models:` entries from the same exporter,
// plus a `groups:` entry whose members fit together and so may stay loaded at once).
// Used by `llamafit-cli export --set` and the GUI's set view. Pure: returns text.
//
// Error codes: export.no-model-file (a member is a built-in card, which has no file to load),
// those of exportPresetIni / llamaSwapModelEntry (export.unrepresentable) and guardExposure
// (launch.exposure-not-chosen: a member's flags bind a non-loopback --host).

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <cstddef>
#include <string>
#include <vector>

namespace llamafit {

struct SetExportMember {
    std::string name;
    std::string modelPath; // absolute; empty for a built-in card (refused)
    ServerSettings settings;
    std::vector<std::string> extraArgs; // passThroughWords() of its flags
    bool operator==(const SetExportMember&) const = default;
};

struct SetExport {
    std::string setName;
    std::string machineName; // what the plan was made for, for the comments
    std::string serverBinary = "llama-server";
    std::string presetFileName; // how the command line names the INI file
    std::vector<SetExportMember> members;
    std::size_t safeModelsMax = 0;         // ModelSetPlan::safeModelsMax
    std::size_t loadableModelsMax = 0;     // ModelSetPlan::loadableModelsMax (0: not stated)
    std::vector<std::size_t> fittingGroup; // ModelSetPlan::largestFittingSet
    bool operator==(const SetExport&) const = default;
};

// --models-max for the exported router: the safe figure, or 1 when not even one model alone
// fits (the comment then says so), since 0 would mean "no limit" to llama-server.
std::size_t exportedModelsMax(const SetExport& set);

Result<std::string> exportSetPresetIni(const SetExport& set);
Result<std::string> exportSetLlamaSwapYaml(const SetExport& set);

} // namespace llamafit

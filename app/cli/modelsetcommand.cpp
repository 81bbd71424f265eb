// `llamafit-cli plan --set FILE.json` and `export --set FILE.json --format ini|llama-swap`: a
// model set file (core/modelset/modelsetfile.h) loaded, each model with its own flags, planned
// on one machine (modelsetplan.h) and exported for llama-server's router or llama-swap
// (modelsetexport.h).

#include "app/cli/commands.h"
#include "app/cli/machinechoice.h"
#include "app/cli/modelsetoutput.h"

#include "core/machine/machineprofile.h"
#include "core/modelset/modelsetexport.h"
#include "core/modelset/modelsetfile.h"
#include "core/modelset/modelsetload.h"

#include <algorithm>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kModelSetPlanUsage =
    R"(usage: llamafit-cli plan --set FILE.json [--json] [--machine ID|FILE.json] [--margin-mib N]
                        [--no-vulkan] [--no-nvml] [--proc-dir DIR] [--drm-dir DIR]

Plans several models, each with its own llama-server flags, on one machine's memory pools at
once, as llama-server's router (--models-preset, --models-max) or a llama-swap group keeps them:
each model's share of every pool stacked on the machine's reservation, which sets of them fit
together, and the largest --models-max that is safe (every set of that many fits).

  --set FILE.json        the model set (format: docs/cli.md, core/modelset/modelsetfile.h)
  --machine ID|FILE      a built-in profile or a profile file; default: the set's "machine",
                         else the machine 'plan' picks (detected GPU, else the EVO-X2 profile)
  --margin-mib N         headroom each pool must keep (default 1024, llama.cpp's --fit-target)
  --json                 machine-readable output (stable fields; see docs)

Exit status: 0 planned (whether or not it fits), 2 bad set file, model, flag or machine.
)";

constexpr const char* kModelSetExportUsage =
    R"(usage: llamafit-cli export --set FILE.json --format ini|llama-swap [--machine ID|FILE.json]
                          [--margin-mib N] [--server PATH]

Prints the model set for llama-server's router or llama-swap, planned on the machine first:
  ini         a --models-preset file (version = 1, one section per model) with the safe
              --models-max and the command to run it in its comments
  llama-swap  a config.yaml: a models: entry per model, and a groups: entry (swap: false) for
              the largest set of them that fits together

  --set FILE.json      the model set; every model must be a GGUF file (not a card id)
  --machine, --margin-mib
                       as for 'plan --set'
  --server PATH        the llama-server program (default: llama-server on PATH)

Exit status: 0 printed, 2 bad set file, model, flag, machine or an argument the format cannot hold.
)";

const std::vector<CliOptionSpec> kSetOptions{{"--set", true},     {"--machine", true}, {"--margin-mib", true},
                                             {"--no-vulkan"},     {"--no-nvml"},       {"--proc-dir", true},
                                             {"--drm-dir", true}, {"--json"},          {"--format", true},
                                             {"--server", true},  {"--help"},          {"-h"}};

// The set file read, every model loaded with its flags parsed, the machine chosen and the plan made.
Result<SetPlanResult> loadAndPlan(const CliOptions& options) {
    const std::string path = options.value("--set").value_or("");
    Result<ModelSetFile> file = loadModelSetFile(path);
    if (!file) {
        return file.error();
    }
    SetPlanResult result;
    result.setName = file->name;
    result.setFile = path;
    Result<std::vector<LoadedSetMember>> loaded = loadSetMembers(*file);
    if (!loaded) {
        return loaded.error();
    }
    result.loaded = std::move(*loaded);
    if (!options.has("--machine") && file->machine) {
        Result<Machine> machine = resolveMachine(*file->machine);
        if (!machine) {
            return machine.error();
        }
        result.machine = *machine;
        result.chosenBecause = "the set's \"machine\": " + *file->machine;
    } else {
        Result<ChosenMachine> chosen = chooseMachine(options);
        if (!chosen) {
            return chosen.error();
        }
        result.machine = chosen->machine;
        result.chosenBecause = chosen->because;
    }
    Result<PlacementOptions> placement = placementOptions(options);
    if (!placement) {
        return placement.error();
    }
    Result<ModelSetPlan> plan = planModelSet(setMembers(result.loaded), result.machine, *placement);
    if (!plan) {
        return plan.error();
    }
    result.plan = std::move(*plan);
    return result;
}

// Splits the options; nullopt when the command is done (help printed, or an error reported).
std::optional<int> splitSetOptions(const std::vector<std::string>& args, const CommandIo& io,
                                   const char* usage, CliOptions& options) {
    Result<CliOptions> split = splitCliOptions(args, kSetOptions);
    if (!split) {
        return reportError(io, split.error(), false);
    }
    options = std::move(*split);
    if (options.has("--help") || options.has("-h")) {
        io.out << usage;
        return kExitOk;
    }
    if (!options.rest.empty()) {
        return reportError(
            io,
            makeError("cli.unexpected-argument", "'" + options.rest.front() +
                                                     "': with --set, each model's flags are in the set "
                                                     "file"),
            options.has("--json"));
    }
    return std::nullopt;
}

} // namespace

bool hasSetOption(const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(),
                       [](const std::string& word) { return word == "--set" || word.starts_with("--set="); });
}

int runPlanSetCommand(const std::vector<std::string>& args, const CommandIo& io) {
    CliOptions options;
    if (const std::optional<int> done = splitSetOptions(args, io, kModelSetPlanUsage, options)) {
        return *done;
    }
    const bool json = options.has("--json");
    if (options.has("--format") || options.has("--server")) {
        return reportError(
            io, makeError("cli.unexpected-argument", "--format and --server belong to 'export --set'"), json);
    }
    Result<SetPlanResult> result = loadAndPlan(options);
    if (!result) {
        return reportError(io, result.error(), json);
    }
    if (json) {
        printJson(io.out, setPlanJson(*result));
    } else {
        printSetPlanText(io.out, *result);
    }
    return kExitOk;
}

int runExportSetCommand(const std::vector<std::string>& args, const CommandIo& io) {
    CliOptions options;
    if (const std::optional<int> done = splitSetOptions(args, io, kModelSetExportUsage, options)) {
        return *done;
    }
    const std::string format = options.value("--format").value_or("");
    if (format != "ini" && format != "llama-swap") {
        return reportError(io, makeError("cli.bad-value", "with --set, --format must be ini or llama-swap"),
                           false);
    }
    if (options.has("--json")) {
        return reportError(
            io, makeError("cli.unexpected-argument", "export prints the file itself, not JSON"), false);
    }
    Result<SetPlanResult> result = loadAndPlan(options);
    if (!result) {
        return reportError(io, result.error(), false);
    }
    SetExport set = makeSetExport(result->setName, result->machine, result->loaded, result->plan);
    set.serverBinary = options.value("--server").value_or("llama-server");
    const Result<std::string> text = format == "ini" ? exportSetPresetIni(set) : exportSetLlamaSwapYaml(set);
    if (!text) {
        return reportError(io, text.error(), false);
    }
    io.out << *text;
    return kExitOk;
}

} // namespace llamafit

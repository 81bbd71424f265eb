// The sizing commands' shared preamble; see sizingcommand.h.

#include "app/cli/sizingcommand.h"

#include <ostream>

namespace llamafit {

namespace {

// inspect's model: -m/--model or one positional word, no llama-server flags.
Result<SizingRequest> loadModelOnly(const CliOptions& options, std::string_view command) {
    std::string model = options.value("-m").value_or(options.value("--model").value_or(""));
    for (const std::string& word : options.rest) {
        if (!model.empty() || (word.size() > 1 && word[0] == '-')) {
            return makeError("cli.unexpected-argument",
                             std::string(command) + " takes one MODEL, not '" + word + "'");
        }
        model = word;
    }
    Result<LoadedModel> loaded = loadModel(model);
    if (!loaded) {
        return loaded.error();
    }
    return SizingRequest{std::move(*loaded), {}, {}};
}

} // namespace

int runSizingCommand(const std::vector<std::string>& args, const CommandIo& io, const SizingCommand& command,
                     const std::function<int(const SizingRun& run)>& body) {
    std::vector<CliOptionSpec> specs{{"--json"}, {"--help"}, {"-h"}};
    if (command.modelOnly) {
        specs.insert(specs.end(), {{"-m", true}, {"--model", true}});
    }
    specs.insert(specs.end(), command.options.begin(), command.options.end());
    Result<CliOptions> options = splitCliOptions(args, specs);
    if (!options) {
        return reportError(io, options.error(), false);
    }
    const bool json = command.jsonOutput ? command.jsonOutput(*options) : options->has("--json");
    if (options->has("--help") || options->has("-h")) {
        io.out << command.usage;
        return kExitOk;
    }
    if (command.checkOptions) {
        if (Result<bool> checked = command.checkOptions(*options); !checked) {
            return reportError(io, checked.error(), false);
        }
    }
    Result<SizingRequest> request =
        command.modelOnly ? loadModelOnly(*options, command.name) : loadSizingRequest(options->rest);
    if (!request) {
        return reportError(io, request.error(), json);
    }
    return body(SizingRun{io, std::move(*options), std::move(*request), json});
}

} // namespace llamafit

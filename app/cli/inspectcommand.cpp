// `llamafit-cli inspect`: what LlamaFit reads from a model (layers by kind, heads, head
// dims, recurrent widths, experts, weights by type) — the inputs of every estimate.

#include "app/cli/commands.h"

#include "app/cli/jsonoutput.h"
#include "app/cli/modelsource.h"
#include "app/cli/textoutput.h"

#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kUsage = R"(usage: llamafit-cli inspect [--json] MODEL
       llamafit-cli inspect [--json] -m MODEL

Shows how LlamaFit reads MODEL (a GGUF file or a built-in card id): architecture, layers by
kind (full attention, SWA, chunked, recurrent, neither, NextN) with a per-layer map, heads and
head dims, recurrent state widths, training context, experts, tied output, weight bytes by
type, and the assumptions made for an unknown architecture.

  --json                 machine-readable output
)";

} // namespace

int runInspectCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options =
        splitCliOptions(args, {{"--json"}, {"--help"}, {"-h"}, {"-m", true}, {"--model", true}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    const bool json = options->has("--json");
    if (options->has("--help") || options->has("-h")) {
        io.out << kUsage;
        return kExitOk;
    }
    std::string model = options->value("-m").value_or(options->value("--model").value_or(""));
    for (const std::string& word : options->rest) {
        if (!model.empty() || (word.size() > 1 && word[0] == '-')) {
            return reportError(
                io, makeError("cli.unexpected-argument", "inspect takes one MODEL, not '" + word + "'"),
                json);
        }
        model = word;
    }
    Result<LoadedModel> loaded = loadModel(model);
    if (!loaded) {
        return reportError(io, loaded.error(), json);
    }
    if (json) {
        io.out << inspectJson(*loaded).dump(2) << "\n";
    } else {
        printInspectText(io.out, *loaded);
    }
    return kExitOk;
}

} // namespace llamafit

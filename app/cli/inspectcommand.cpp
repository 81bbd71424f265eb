// `llamafit-cli inspect`: what LlamaFit reads from a model (layers by kind, heads, head
// dims, recurrent widths, experts, weights by type) — the inputs of every estimate.

#include "app/cli/commands.h"

#include "app/cli/jsonoutput.h"
#include "app/cli/sizingcommand.h"
#include "app/cli/textoutput.h"

#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kInspectUsage = R"(usage: llamafit-cli inspect [--json] MODEL
       llamafit-cli inspect [--json] -m MODEL

Shows how LlamaFit reads MODEL (a GGUF file or a built-in card id): architecture, layers by
kind (full attention, SWA, chunked, recurrent, neither, NextN) with a per-layer map, heads and
head dims, recurrent state widths, training context, experts, tied output, weight bytes by
type, and the assumptions made for an unknown architecture.

  --json                 machine-readable output
)";

} // namespace

int runInspectCommand(const std::vector<std::string>& args, const CommandIo& io) {
    return runSizingCommand(args, io, {.name = "inspect", .usage = kInspectUsage, .modelOnly = true},
                            [](const SizingRun& run) {
                                if (run.json) {
                                    printJson(run.io.out, inspectJson(run.request.model));
                                } else {
                                    printInspectText(run.io.out, run.request.model);
                                }
                                return kExitOk;
                            });
}

} // namespace llamafit

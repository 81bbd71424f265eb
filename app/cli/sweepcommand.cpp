// `llamafit-cli sweep`: total and KV bytes over a grid of contexts x K/V cache type pairs,
// as a text table, CSV (one row per context) or JSON.

#include "app/cli/commands.h"

#include "app/cli/jsonoutput.h"
#include "app/cli/kvpairs.h"
#include "app/cli/sizingcommand.h"
#include "app/cli/textoutput.h"
#include "app/cli/texttable.h"
#include "core/sizing/estimator.h"
#include "core/sizing/sweepgrid.h"

#include <algorithm>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kSweepUsage =
    R"(usage: llamafit-cli sweep [--format text|csv|json] -m MODEL [llama-server flags]
                          [--contexts 4096,8192,...] [--types f16,q8_0,q4_0,f16/q8_0]

Estimates every context x K/V pair: total MiB and KV MiB (text), or bytes (csv, json).
A pair llama-server refuses for this model (e.g. a block size that does not divide the head
dim) shows n/a (text), empty cells (csv) or its error (json).

  --contexts LIST        -c values (default: powers of two from 4096 up to the training context)
  --types LIST           TYPE (K = V) or K/V, comma-separated (default: f16,q8_0,q4_0,f16/q8_0)
  --llama-build bNNNN    the llama.cpp build to size for (default: the build that --server
                         PATH's --version names, else b11669, llama.cpp 0.7.0); an older
                         build's graph is built with the changes llama.cpp made up to it
                         (docs/engine.md)
  --format FORMAT        text (default), csv or json; --json is the same as --format json
)";

std::string pairColumn(const KvPair& pair) {
    return std::string(ggmlTypeName(pair.first)) + "_" + std::string(ggmlTypeName(pair.second));
}

void printCsv(std::ostream& out, const SweepGrid& sweep) {
    out << "context";
    for (const KvPair& pair : sweep.pairs) {
        out << ",total_bytes_" << pairColumn(pair) << ",kv_bytes_" << pairColumn(pair);
    }
    out << "\n";
    for (std::size_t r = 0; r < sweep.contexts.size(); ++r) {
        out << sweep.contexts[r];
        for (std::size_t p = 0; p < sweep.pairs.size(); ++p) {
            if (const Result<MemoryEstimate>& cell = sweep.at(r, p)) {
                out << "," << cell->totals.totalBytes() << "," << cell->totals.kvBytes;
            } else {
                out << ",,";
            }
        }
        out << "\n";
    }
}

void printText(std::ostream& out, const SizingRequest& request, const SweepGrid& sweep) {
    out << "Model     " << modelLine(request.model) << "\n";
    out << "Cells     total MiB (KV MiB)\n\n";
    std::vector<std::string> header{"-c"};
    std::vector<TextTable::Align> align{TextTable::Align::Right};
    for (const KvPair& pair : sweep.pairs) {
        header.push_back(kvPairName(pair));
        align.push_back(TextTable::Align::Right);
    }
    TextTable table(std::move(header), std::move(align));
    for (std::size_t r = 0; r < sweep.contexts.size(); ++r) {
        std::vector<std::string> row{std::to_string(sweep.contexts[r])};
        for (std::size_t p = 0; p < sweep.pairs.size(); ++p) {
            const Result<MemoryEstimate>& cell = sweep.at(r, p);
            row.push_back(cell ? formatMiB(cell->totals.totalBytes()) + " (" +
                                     formatMiB(cell->totals.kvBytes) + ")"
                               : "n/a");
        }
        table.addRow(std::move(row));
    }
    table.print(out, "");
    const ParsedServerArgs& flags = request.args;
    if (!flags.notes.empty() || !flags.unmodelledFlags.empty() || !flags.ignoredFlags.empty()) {
        out << "\n";
        printFlagLists(out, flags);
    }
}

Json toJson(const SizingRequest& request, const SweepGrid& sweep) {
    Json json;
    json["model"] = modelJson(request.model);
    json["settings"] = {{"args", toServerArgs(request.args.settings)}};
    Json pairs = Json::array();
    for (const KvPair& pair : sweep.pairs) {
        pairs.push_back({{"type_k", ggmlTypeName(pair.first)}, {"type_v", ggmlTypeName(pair.second)}});
    }
    json["pairs"] = std::move(pairs);
    Json rows = Json::array();
    for (std::size_t r = 0; r < sweep.contexts.size(); ++r) {
        Json cells = Json::array();
        for (std::size_t p = 0; p < sweep.pairs.size(); ++p) {
            if (const Result<MemoryEstimate>& cell = sweep.at(r, p)) {
                cells.push_back({{"n_ctx", cell->context.nCtx},
                                 {"total_bytes", cell->totals.totalBytes()},
                                 {"kv_bytes", cell->totals.kvBytes}});
            } else {
                cells.push_back(
                    {{"error", {{"code", cell.error().code}, {"message", cell.error().message}}}});
            }
        }
        rows.push_back({{"context", sweep.contexts[r]}, {"cells", std::move(cells)}});
    }
    json["rows"] = std::move(rows);
    json["unmodelled_flags"] = request.args.unmodelledFlags;
    json["ignored_flags"] = request.args.ignoredFlags;
    return json;
}

// The grid of --contexts x --types for the loaded model, printed in the chosen format.
int sweep(const SizingRun& run, const std::string& format) {
    const SizingRequest& request = run.request;
    std::vector<std::uint32_t> contexts = powerOfTwoContexts(request.model.info.trainingContext);
    if (const std::optional<std::string> list = run.options.value("--contexts")) {
        Result<std::vector<std::uint32_t>> parsed = parseNumberList("--contexts", *list);
        if (!parsed) {
            return run.fail(parsed.error());
        }
        contexts = std::move(*parsed);
    }
    std::vector<KvPair> pairs = defaultKvPairs();
    if (const std::optional<std::string> types = run.options.value("--types")) {
        Result<std::vector<KvPair>> parsed = parseKvPairs("--types", *types);
        if (!parsed) {
            return run.fail(parsed.error());
        }
        pairs = std::move(*parsed);
    }
    const SweepGrid sweep =
        estimateSweepGrid(prepareModel(request.model.info, request.companions), request.args.settings,
                          request.args.gpus, std::move(contexts), std::move(pairs));
    // A grid with no cell at all is a refusal of the settings themselves (an -ot pattern, a split
    // llama-server would reject): named once, exit 2, like estimate -- not a table of n/a.
    const auto anyCell = [](const std::vector<Result<MemoryEstimate>>& column) {
        return std::any_of(column.begin(), column.end(), [](const auto& cell) { return cell.ok(); });
    };
    if (!sweep.cells.empty() && !sweep.cells.front().empty() &&
        std::none_of(sweep.cells.begin(), sweep.cells.end(), anyCell)) {
        return run.fail(sweep.cells.front().front().error());
    }
    if (format == "csv") {
        printCsv(run.io.out, sweep);
    } else if (run.json) {
        printJson(run.io.out, toJson(request, sweep));
    } else {
        printText(run.io.out, request, sweep);
    }
    return kExitOk;
}

std::string formatOf(const CliOptions& options) {
    return options.has("--json") ? "json" : options.value("--format").value_or("text");
}

} // namespace

int runSweepCommand(const std::vector<std::string>& args, const CommandIo& io) {
    SizingCommand command{.name = "sweep",
                          .usage = kSweepUsage,
                          .options = {{"--format", true}, {"--contexts", true}, {"--types", true}}};
    command.jsonOutput = [](const CliOptions& options) { return formatOf(options) == "json"; };
    command.checkOptions = [](const CliOptions& options) -> Result<bool> {
        const std::string format = formatOf(options);
        if (format != "text" && format != "csv" && format != "json") {
            return makeError("cli.bad-value", "bad --format '" + format + "': expected text, csv or json");
        }
        return true;
    };
    return runSizingCommand(args, io, command,
                            [](const SizingRun& run) { return sweep(run, formatOf(run.options)); });
}

} // namespace llamafit

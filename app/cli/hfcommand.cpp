// `llamafit-cli hf`: Hugging Face repos before and after download -- search, the quant x context
// fit table for this machine (headers read by Range, never tensor data), and a download into the
// shared hub cache that llama-server -hf also reads.

#include "app/cli/commands.h"
#include "app/cli/jsonoutput.h"
#include "app/cli/kvpairs.h"
#include "app/cli/machinechoice.h"
#include "app/cli/qtapplicationscope.h"
#include "app/cli/texttable.h"
#include "core/flags/serverargs.h"
#include "core/hub/hubcachelayout.h"
#include "core/hub/quantfit.h"
#include "core/model/modelspec.h"
#include "core/sizing/kvpairs.h"
#include "core/system/benchmarkstore.h"
#include "core/system/hubdownload.h"
#include "core/system/hubquants.h"
#include "core/system/processenvironment.h"

#include <QCoreApplication>

#include <cstdio>
#include <memory>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kHfUsage =
    R"(usage: llamafit-cli hf search QUERY [--limit N] [--json]
       llamafit-cli hf quants REPO [--machine ID|FILE.json] [--margin-mib N] [--types LIST]
                              [llama-server flags] [--json]
       llamafit-cli hf pull REPO[:QUANT]|CARD_ID [--no-mmproj] [--json]

Hugging Face GGUF repos, sized for this machine before anything is downloaded.

  search QUERY   GGUF repos matching QUERY, most downloaded first (--limit N, default 20)
  quants REPO    every quant of REPO (split files as one, projectors paired as llama-server
                 pairs them) sized from its GGUF header -- read by HTTP Range requests up to
                 where the tensor data starts, and cached by content -- with the same estimate
                 as a local file: for this machine and the llama-server flags given (-c, -np,
                 -ngl, -fa, ...), the verdict at the context asked for (default: the model's
                 training context), the largest -c per K/V pair, the expected decode speed,
                 and the recommended quant (the best quality that fits)
  pull REPO[:QUANT]
                 downloads the quant (default: llama-server's, Q4_K_M then Q8_0) and its
                 projector into the Hugging Face cache, resuming a partial download (also one
                 llama-server -hf left), and checks its sha256 before use; prints the paths
                 to give llama-server's -m and --mmproj; a built-in card's id ('cards') pulls
                 the repo and quant the card was made from

  --machine, --margin-mib, --no-vulkan, --no-nvml
                 the machine as for 'plan' (default: this one)
  --types LIST   K/V pairs for the context search (default f16,q8_0,q4_0,f16/q8_0)
  --no-mmproj    pull the model without its projector
  --json         machine-readable output

Environment: HF_ENDPOINT or MODEL_ENDPOINT (a mirror), HF_TOKEN (or $HF_HOME/token) for gated
repos -- sent to the endpoint only, never to the CDN it redirects downloads to -- and
HF_HUB_CACHE, HF_HOME or LLAMA_CACHE for the cache folder.

Exit status: 0 done, 2 bad argument, repo or answer (the message names it), 1 a download
that failed or was cancelled (a partial file stays and resumes next time).
)";

constexpr std::uint32_t kDefaultSearchLimit = 20;

std::string gib(std::uint64_t bytes) {
    return formatGiB(bytes);
}

Json candidateSummaryJson(const RepoQuant& quant) {
    Json files = Json::array();
    for (const HubRepoFile& file : quant.files) {
        files.push_back({{"path", file.path}, {"bytes", file.size}, {"sha256", file.sha256}});
    }
    return {{"label", quant.label},
            {"model_bytes", quant.modelBytes},
            {"files", std::move(files)},
            {"projector", quant.projector
                              ? Json{{"path", quant.projector->path}, {"bytes", quant.projector->size}}
                              : Json(nullptr)}};
}

int runSearch(const CliOptions& options, const CommandIo& io) {
    const bool json = options.has("--json");
    if (options.rest.size() != 2) {
        return reportError(io, makeError("cli.missing-value", "hf search takes one QUERY"), json);
    }
    std::uint32_t limit = kDefaultSearchLimit;
    if (const std::optional<std::string> text = options.value("--limit")) {
        Result<std::vector<std::uint32_t>> numbers = parseNumberList("--limit", *text);
        if (!numbers || numbers->size() != 1 || numbers->front() == 0) {
            return reportError(io, makeError("cli.bad-value", "--limit takes one positive number"), json);
        }
        limit = numbers->front();
    }
    HubClient client(hubClientOptionsFromEnvironment());
    auto models = client.search(options.rest[1], limit);
    if (!models) {
        return reportError(io, models.error(), json);
    }
    if (json) {
        Json list = Json::array();
        for (const HubModelSummary& model : *models) {
            list.push_back({{"id", model.id},
                            {"downloads", model.downloads},
                            {"likes", model.likes},
                            {"gated", model.gated},
                            {"architecture", model.architecture},
                            {"parameters", model.parameters},
                            {"context_length", model.contextLength}});
        }
        printJson(io.out, Json{{"endpoint", client.options().endpoint}, {"models", std::move(list)}});
        return kExitOk;
    }
    TextTable table({"repo", "downloads", "params", "architecture", "context", "gated"},
                    {TextTable::Align::Left, TextTable::Align::Right, TextTable::Align::Right,
                     TextTable::Align::Left, TextTable::Align::Right, TextTable::Align::Left});
    for (const HubModelSummary& model : *models) {
        char params[32] = "-";
        if (model.parameters > 0) {
            std::snprintf(params, sizeof params, "%.1fB", static_cast<double>(model.parameters) / 1e9);
        }
        table.addRow({model.id, std::to_string(model.downloads), params,
                      model.architecture.empty() ? "-" : model.architecture,
                      model.contextLength > 0 ? std::to_string(model.contextLength) : "-",
                      model.gated ? "yes" : ""});
    }
    table.print(io.out);
    if (models->empty()) {
        io.out << "  (no GGUF repo matches '" << options.rest[1] << "')\n";
    }
    return kExitOk;
}

std::string speedText(const std::optional<SpeedPrediction>& speed) {
    if (!speed) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", speed->decodeTpsExpected);
    return text;
}

int runQuants(const CliOptions& options, const CommandIo& io) {
    const bool json = options.has("--json");
    if (options.rest.size() < 2) {
        return reportError(io, makeError("cli.missing-value", "hf quants takes a REPO (org/name)"), json);
    }
    const std::string repoId = options.rest[1];
    Result<ParsedServerArgs> flags =
        parseServerArgs(std::vector<std::string>(options.rest.begin() + 2, options.rest.end()));
    if (!flags) {
        return reportError(io, flags.error(), json);
    }
    std::vector<KvPair> pairs = defaultKvPairs();
    if (const std::optional<std::string> types = options.value("--types")) {
        Result<std::vector<KvPair>> parsed = parseKvPairs("--types", *types);
        if (!parsed) {
            return reportError(io, parsed.error(), json);
        }
        pairs = std::move(*parsed);
    }
    Result<ChosenMachine> machine = chooseMachine(options);
    if (!machine) {
        return reportError(io, machine.error(), json);
    }
    Result<PlacementOptions> placement = placementOptions(options);
    if (!placement) {
        return reportError(io, placement.error(), json);
    }
    HubClient client(hubClientOptionsFromEnvironment());
    const HubHeaderCache cache(HubHeaderCache::defaultDirectory());
    auto sizing = sizeRepoQuants(client, cache, repoId, "main", [&](const std::string& label) {
        io.err << "reading the header of " << label << "\n";
    });
    if (!sizing) {
        return reportError(io, sizing.error(), json);
    }
    const BenchmarkStore store;
    const QuantFitTable table =
        quantFitTable(sizing->candidates, flags->settings, machine->machine, *placement, pairs,
                      [&](bool moe) { return store.efficiencyFor(machine->machine, moe); });

    if (json) {
        Json rows = Json::array();
        for (std::size_t i = 0; i < table.rows.size(); ++i) {
            const QuantFitRow& row = table.rows[i];
            Json item = candidateSummaryJson(row.quant);
            item["recommended"] = table.recommended == i;
            if (row.error) {
                item["error"] = {{"code", row.error->code}, {"message", row.error->message}};
                rows.push_back(std::move(item));
                continue;
            }
            item["context_tokens"] = row.contextTokens;
            item["verdict"] = std::string(fitVerdictName(row.verdict));
            item["total_bytes"] = row.estimate->totals.totalBytes();
            Json largest = Json::array();
            for (const ContextFit& fit : row.largestContext) {
                largest.push_back({{"type_k", ggmlTypeName(fit.typeK)},
                                   {"type_v", ggmlTypeName(fit.typeV)},
                                   {"fits", fit.fits},
                                   {"context_tokens", fit.contextTokens},
                                   {"total_bytes", fit.totalBytes}});
            }
            item["largest_context"] = std::move(largest);
            item["decode_tps_expected"] = row.speed ? Json(row.speed->decodeTpsExpected) : Json(nullptr);
            rows.push_back(std::move(item));
        }
        printJson(io.out, Json{{"repo", repoId},
                               {"commit", sizing->commit},
                               {"machine", machine->machine.id},
                               {"settings", {{"args", toServerArgs(flags->settings)}}},
                               {"header_bytes_read", sizing->bytesRead},
                               {"quants", std::move(rows)}});
        return kExitOk;
    }
    io.out << "Repo      " << repoId << " @ " << sizing->commit.substr(0, 12) << "\n";
    io.out << "Machine   " << machine->machine.name << " (" << machine->because << ")\n";
    io.out << "Headers   " << formatMiB(sizing->bytesRead) << " MiB read (tensor data: none)\n\n";
    std::vector<std::string> header{"quant", "file GiB", "-c", "verdict", "total MiB"};
    std::vector<TextTable::Align> align{TextTable::Align::Left, TextTable::Align::Right,
                                        TextTable::Align::Right, TextTable::Align::Left,
                                        TextTable::Align::Right};
    for (const KvPair& pair : pairs) {
        header.push_back("max -c " + kvPairName(pair));
        align.push_back(TextTable::Align::Right);
    }
    header.push_back("t/s");
    align.push_back(TextTable::Align::Right);
    TextTable text(header, align);
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
        const QuantFitRow& row = table.rows[i];
        const std::string label = row.quant.label + (table.recommended == i ? " *" : "");
        std::uint64_t fileBytes =
            row.quant.modelBytes + (row.quant.projector ? row.quant.projector->size : 0);
        if (row.error) {
            std::vector<std::string> cells{label, gib(fileBytes), "-", "error: " + row.error->code, "-"};
            cells.resize(header.size(), "-");
            text.addRow(cells);
            continue;
        }
        std::vector<std::string> cells{label, gib(fileBytes), std::to_string(row.contextTokens),
                                       std::string(fitVerdictName(row.verdict)),
                                       formatMiB(row.estimate->totals.totalBytes())};
        for (const ContextFit& fit : row.largestContext) {
            cells.push_back(fit.fits ? std::to_string(fit.contextTokens) : "no");
        }
        cells.push_back(speedText(row.speed));
        text.addRow(cells);
    }
    text.print(io.out);
    if (table.recommended) {
        io.out << "\n* recommended: " << table.rows[*table.recommended].quant.label
               << " (the best quality that fits; get it with 'llamafit-cli hf pull " << repoId << ":"
               << table.rows[*table.recommended].quant.label << "')\n";
    } else {
        io.out << "\nNo quant fits at this context: lower -c or use a smaller K/V cache type\n";
    }
    return kExitOk;
}

int runPull(const CliOptions& options, const CommandIo& io) {
    const bool json = options.has("--json");
    if (options.rest.size() != 2) {
        return reportError(io, makeError("cli.missing-value", "hf pull takes REPO[:QUANT]"), json);
    }
    std::string repoId = options.rest[1];
    std::string tag;
    if (const std::size_t colon = repoId.find(':'); colon != std::string::npos) {
        tag = repoId.substr(colon + 1);
        repoId.erase(colon);
    } else if (repoId.find('/') == std::string::npos) {
        // A built-in card's id: the repo and quant it was made from.
        Result<ModelSpec> card = findBuiltinModelCard(repoId);
        if (!card || card->hubRepo.empty()) {
            return reportError(
                io,
                makeError("hub.bad-repo-id", "'" + repoId +
                                                 "' is neither a repo (org/name) nor a built-in card "
                                                 "with a Hugging Face source"),
                json);
        }
        repoId = card->hubRepo;
        tag = card->hubQuant;
    }
    HubClient client(hubClientOptionsFromEnvironment());
    auto commit = client.branchCommit(repoId);
    if (!commit) {
        return reportError(io, commit.error(), json);
    }
    auto files = client.tree(repoId, *commit);
    if (!files) {
        return reportError(io, files.error(), json);
    }
    const std::vector<RepoQuant> quants = repoQuants(*files);
    const RepoQuant* quant = quantForTag(quants, tag);
    if (quant == nullptr) {
        std::string labels;
        for (const RepoQuant& q : quants) {
            labels += (labels.empty() ? "" : ", ") + q.label;
        }
        return reportError(
            io,
            makeError("hub.no-quant", repoId + " has no quant '" + tag + "'" +
                                          (labels.empty() ? " (no GGUF model files)" : "; it has " + labels)),
            json);
    }
    const HubCacheLayout layout{
        huggingFaceHubCacheDirectory(processEnvironment(), homeDirectory(), currentOsKind()), repoId};
    int lastPercent = -1;
    auto pulled = pullQuant(
        client, layout, *commit, *quant, !options.has("--no-mmproj"),
        [&](const HubDownloadProgress& progress) {
            const int percent = progress.totalBytes > 0
                                    ? static_cast<int>(100 * progress.totalDone / progress.totalBytes)
                                    : 100;
            if (percent != lastPercent) {
                lastPercent = percent;
                const double left = progress.bytesPerSecond > 0
                                        ? static_cast<double>(progress.totalBytes - progress.totalDone) /
                                              progress.bytesPerSecond
                                        : 0;
                io.err << "\r" << progress.repoPath << ": " << percent << " % of " << gib(progress.totalBytes)
                       << " GiB, " << formatMiB(static_cast<std::uint64_t>(progress.bytesPerSecond))
                       << " MiB/s, " << static_cast<long long>(left) << " s left   " << std::flush;
            }
        });
    if (lastPercent >= 0) {
        io.err << "\n";
    }
    if (!pulled) {
        reportError(io, pulled.error(), json);
        return 1;
    }
    if (json) {
        printJson(io.out, Json{{"repo", repoId},
                               {"commit", pulled->commit},
                               {"quant", quant->label},
                               {"model_paths", pulled->modelPaths},
                               {"projector_path",
                                pulled->projectorPath ? Json(*pulled->projectorPath) : Json(nullptr)}});
        return kExitOk;
    }
    io.out << "Downloaded " << repoId << ":" << quant->label << " (" << pulled->commit.substr(0, 12) << ")\n";
    io.out << "  -m " << pulled->modelPaths.front() << "\n";
    if (pulled->projectorPath) {
        io.out << "  --mmproj " << *pulled->projectorPath << "\n";
    }
    return kExitOk;
}

} // namespace

int runHfCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--json"},
                                                        {"--help"},
                                                        {"-h"},
                                                        {"--limit", true},
                                                        {"--machine", true},
                                                        {"--margin-mib", true},
                                                        {"--types", true},
                                                        {"--no-vulkan"},
                                                        {"--no-nvml"},
                                                        {"--proc-dir", true},
                                                        {"--drm-dir", true},
                                                        {"--bandwidth"},
                                                        {"--no-mmproj"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    if (options->has("--help") || options->has("-h")) {
        io.out << kHfUsage;
        return kExitOk;
    }
    const std::string sub = options->rest.empty() ? "" : options->rest.front();
    const QtApplicationScope application; // the Hub client's event loops need one
    if (sub == "search") {
        return runSearch(*options, io);
    }
    if (sub == "quants") {
        return runQuants(*options, io);
    }
    if (sub == "pull") {
        return runPull(*options, io);
    }
    io.err << kHfUsage;
    return reportError(io,
                       makeError("cli.unknown-command", "hf takes search, quants or pull, not '" + sub + "'"),
                       options->has("--json"));
}

} // namespace llamafit

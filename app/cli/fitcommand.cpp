// `llamafit-cli fit`: what fits a memory budget — the largest context per K/V pair, the
// best K/V pair for the given -c, and the most GPU layers. "Does not fit" is an answer
// (exit 0), not an error.

#include "app/cli/commands.h"
#include "app/cli/speedoutput.h"
#include "core/machine/kvpairspeed.h"

#include "app/cli/advicetext.h"
#include "app/cli/fitreplicaoutput.h"
#include "app/cli/jsonoutput.h"
#include "app/cli/kvpairs.h"
#include "app/cli/sizingcommand.h"
#include "app/cli/textoutput.h"
#include "app/cli/texttable.h"
#include "core/flags/flagvalues.h"
#include "core/sizing/solvers.h"
#include "core/sizing/splitsolver.h"

#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kFitUsage =
    R"(usage: llamafit-cli fit [--json] -m MODEL [llama-server flags] (--budget-mib N | --gpu NAME=MiB ...)
       llamafit-cli fit --as-llama-server [--json] -m MODEL [llama-server flags] [--gpu NAME=FREE_MiB ...]
                        [--host-total-mib N]

Searches what fits the memory budget, using the same estimate as 'estimate':
  - the largest -c (multiple of 256, at most the training context) per K/V cache type pair
  - the best K/V pair for the -c given (quality: f32 > f16 = bf16 > q8_0 > q5_1 > q5_0 > q4_1
    > iq4_nl > q4_0, K at least as precise as V)
  - the most GPU layers (-ngl) when GPUs are given
  - with two or more devices (GPUs, --rpc servers): the -ts split that fits the largest -c,
    next to what llama.cpp's default split (by free memory) fits

  --budget-mib N         host memory budget (RAM) in MiB
  --gpu [BACKEND:]NAME=MiB
                         a GPU and its memory budget (repeatable; see 'estimate --help')
  --gpu rpc:HOST:PORT=MiB
                         an RPC server that --rpc names, with its free memory (see 'estimate --help')
  --rpc HOST:PORT[=FREE_MiB],...
                         RPC servers with their free memory, or asked live without it through
                         llama-server (--server PATH; see 'estimate --help')
  --types LIST           K/V pairs for the context search: TYPE (K = V) or K/V, comma-separated
                         (default: f16,q8_0,q4_0,f16/q8_0)
  --all-pairs            search every pair of llama-server cache types
  --bandwidth-gbs N      memory bandwidth (GB/s): each K/V answer also gets its expected decode
                         speed at a full slot (bound x public-default efficiency, docs/speed.md)
  --llama-build bNNNN    the llama.cpp build to size for (default: the build that --server
                         PATH's --version names, else b11669, llama.cpp 0.7.0); an older
                         build's graph is built with the changes llama.cpp made up to it
                         (docs/engine.md)
  --json                 machine-readable output

With --as-llama-server: what llama-server's own fit (-fit on, its default) picks for the flags
left unset -- -c, -ngl, -ts and the MoE -ot -- printed like llama-fit-params prints it
("-c 116224 -ngl -1"). -fit, -fitt (target free MiB per device, default 1024) and -fitc
(minimum context, default 4096) are read as llama-server reads them.
  --gpu [BACKEND:]NAME=MiB
                         a device and the free memory its driver reports (llama-server logs it:
                         "using device Vulkan0 (...) - 2048 MiB free")
  --host-total-mib N     the host's total memory ("MiB of total host memory"), what a run
                         without GPUs is fitted into (default: this machine's, as llama.cpp reads it)
  --as-llama-fit-params  the same fit as llama-fit-params measures it (-np 1 by default, a
                         larger compute buffer), to compare with that tool

Exit status: 0 answered (also when nothing fits), 2 bad model, flag or setting; with
--as-llama-server, 1 when llama.cpp's fit gives up (the reason on stderr).
)";

Json contextFitJson(const ContextFit& fit) {
    return {{"type_k", ggmlTypeName(fit.typeK)},
            {"type_v", ggmlTypeName(fit.typeV)},
            {"fits", fit.fits},
            {"context_tokens", fit.contextTokens},
            {"total_bytes", fit.totalBytes},
            {"reason", fitFailureReason(fit)}};
}

std::string fitText(const ContextFit& fit) {
    if (!fit.fits) {
        return "does not fit: " + fitFailureReason(fit);
    }
    return kvPairName({fit.typeK, fit.typeV}) + " (-ctk " + std::string(ggmlTypeName(fit.typeK)) + " -ctv " +
           std::string(ggmlTypeName(fit.typeV)) + ", total " + formatMiB(fit.totalBytes) + " MiB)";
}

struct FitResults {
    std::optional<double> bandwidthGBps;                       // --bandwidth-gbs: speeds per answer
    std::vector<std::optional<SpeedPrediction>> largestSpeeds; // one per `largest` row
    std::optional<SpeedPrediction> bestSpeed;
    std::vector<ContextFit> largest;
    std::optional<ContextFit> best;    // only with -c
    std::optional<GpuLayerFit> layers; // only with GPUs
    std::optional<SplitFit> split;     // only with two or more devices
};

void printText(std::ostream& out, const SizingRequest& request, const MemoryBudget& budget,
               const FitResults& results) {
    out << "Model     " << modelLine(request.model) << "\n";
    out << "Budget    host "
        << (budget.hostBytes == 0 ? "unconstrained" : formatMiB(budget.hostBytes) + " MiB");
    for (std::size_t i = 0; i < request.args.gpus.size(); ++i) {
        out << ", " << request.args.gpus[i].name << " " << formatMiB(budget.gpuBytes[i]) << " MiB";
    }
    out << "\n\nLargest context per K/V pair (training context " << request.model.info.trainingContext
        << ")\n";
    TextTable table({"K/V", "fits", "-c", "total MiB", "t/s bound", "t/s expected", "reason"},
                    {TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Right,
                     TextTable::Align::Right, TextTable::Align::Right, TextTable::Align::Right,
                     TextTable::Align::Left});
    const auto rate = [](const std::optional<SpeedPrediction>& speed, bool expected) {
        if (!speed) {
            return std::string("-");
        }
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", expected ? speed->decodeTpsExpected : speed->decodeTpsBound);
        return std::string(text);
    };
    for (std::size_t i = 0; i < results.largest.size(); ++i) {
        const ContextFit& fit = results.largest[i];
        const std::optional<SpeedPrediction> speed =
            i < results.largestSpeeds.size() ? results.largestSpeeds[i] : std::nullopt;
        table.addRow({kvPairName({fit.typeK, fit.typeV}), fit.fits ? "yes" : "no",
                      fit.fits ? std::to_string(fit.contextTokens) : "-",
                      fit.fits ? formatMiB(fit.totalBytes) : "-", rate(speed, false), rate(speed, true),
                      fitFailureReason(fit)});
    }
    table.print(out);
    if (results.best) {
        out << "\nBest K/V pair for -c " << request.args.settings.contextTokens.value_or(0) << ": "
            << fitText(*results.best) << "\n";
        if (results.bestSpeed) {
            out << "  decode at a full slot: " << describeSpeed(*results.bestSpeed) << "\n";
        }
    } else {
        out << "\nBest K/V pair: pass -c N to choose the cache types for a context\n";
    }
    if (results.layers) {
        out << "Most GPU layers: "
            << (results.layers->fits ? "-ngl " + std::to_string(results.layers->gpuLayers) + " (total " +
                                           formatMiB(results.layers->totalBytes) + " MiB)"
                                     : std::string("does not fit, even with no layers on the GPUs"))
            << "\n";
    }
    if (results.split) {
        const SplitFit& split = *results.split;
        out << "Best split: ";
        if (split.fits) {
            out << "-ts " << tensorSplitText(split.tensorSplit) << " fits -c " << split.contextTokens
                << " (total " << formatMiB(split.totalBytes) << " MiB)";
        } else {
            out << "no split fits -c 256";
        }
        out << "; llama.cpp's default split (by free memory) fits "
            << (split.defaultSplitContextTokens ? "-c " + std::to_string(*split.defaultSplitContextTokens)
                                                : std::string("not even -c 256"))
            << "\n";
    }
    const ParsedServerArgs& flags = request.args;
    if (!flags.notes.empty() || !flags.unmodelledFlags.empty() || !flags.ignoredFlags.empty()) {
        out << "\n";
        printFlagLists(out, flags);
    }
}

Json toJson(const SizingRequest& request, const MemoryBudget& budget, const FitResults& results) {
    Json json;
    json["model"] = modelJson(request.model);
    json["settings"] = {{"args", toServerArgs(request.args.settings)}};
    Json gpus = Json::array();
    for (std::size_t i = 0; i < request.args.gpus.size(); ++i) {
        gpus.push_back({{"name", request.args.gpus[i].name}, {"bytes", budget.gpuBytes[i]}});
    }
    json["budget"] = {{"host_bytes", budget.hostBytes}, {"gpus", std::move(gpus)}};
    Json largest = Json::array();
    for (std::size_t i = 0; i < results.largest.size(); ++i) {
        const ContextFit& fit = results.largest[i];
        Json item = contextFitJson(fit);
        if (results.bandwidthGBps) {
            item["speed"] =
                speedJson(i < results.largestSpeeds.size() ? results.largestSpeeds[i] : std::nullopt,
                          fit.contextTokens, "does not fit");
        }
        largest.push_back(std::move(item));
    }
    json["largest_context"] = std::move(largest);
    json["best_kv_pair"] = results.best ? contextFitJson(*results.best) : Json(nullptr);
    if (results.best && results.bandwidthGBps) {
        json["best_kv_pair"]["speed"] =
            speedJson(results.bestSpeed, request.args.settings.contextTokens.value_or(0), "does not fit");
    }
    json["most_gpu_layers"] = results.layers ? Json{{"fits", results.layers->fits},
                                                    {"gpu_layers", results.layers->gpuLayers},
                                                    {"total_bytes", results.layers->totalBytes}}
                                             : Json(nullptr);
    json["best_split"] = nullptr;
    if (results.split) {
        const SplitFit& split = *results.split;
        json["best_split"] = {{"fits", split.fits},
                              {"tensor_split", split.tensorSplit},
                              {"context_tokens", split.contextTokens},
                              {"total_bytes", split.totalBytes},
                              {"default_split_context_tokens", split.defaultSplitContextTokens
                                                                   ? Json(*split.defaultSplitContextTokens)
                                                                   : Json(nullptr)}};
    }
    json["unmodelled_flags"] = request.args.unmodelledFlags;
    json["ignored_flags"] = request.args.ignoredFlags;
    return json;
}

// The fit searches for the loaded model, the flags and the budget of --budget-mib / --gpu.
int fit(const SizingRun& run) {
    if (run.options.has("--as-llama-server")) {
        return runFitReplica(run, FitProgram::LlamaServer);
    }
    if (run.options.has("--as-llama-fit-params")) {
        return runFitReplica(run, FitProgram::LlamaFitParams);
    }
    MemoryBudget budget;
    if (const std::optional<std::string> mib = run.options.value("--budget-mib")) {
        Result<std::uint64_t> bytes = parseMiB("--budget-mib", *mib);
        if (!bytes) {
            return run.fail(bytes.error());
        }
        budget.hostBytes = *bytes;
    }
    for (const GpuDevice& gpu : run.request.args.gpus) {
        budget.gpuBytes.push_back(gpu.memoryBytes);
    }
    if (budget.hostBytes == 0 && budget.gpuBytes.empty()) {
        return run.fail(makeError("cli.missing-budget", "fit needs --budget-mib N or --gpu NAME=MiB"));
    }
    std::vector<KvPair> pairs = defaultKvPairs();
    if (run.options.has("--all-pairs")) {
        pairs.clear(); // the solver then tries every llama-server cache type pair
    } else if (const std::optional<std::string> types = run.options.value("--types")) {
        Result<std::vector<KvPair>> parsed = parseKvPairs("--types", *types);
        if (!parsed) {
            return run.fail(parsed.error());
        }
        pairs = std::move(*parsed);
    }
    // Settings llama-server would refuse are an error, not "does not fit".
    if (Result<bool> valid = validateSettings(run.request.model.info, run.request.args.settings); !valid) {
        return run.fail(valid.error());
    }

    const ModelInfo& model = run.request.model.info;
    const ServerSettings& settings = run.request.args.settings;
    const std::vector<GpuDevice>& gpus = run.request.args.gpus;
    // Prepared once with the files the flags load besides the model (a draft, adapters): the
    // largest context is the one that fits with them.
    const SizingModel prepared = prepareModel(model, run.request.companions);
    FitResults results;
    results.largest = largestContextPerKvPair(prepared, settings, gpus, budget, pairs);
    if (settings.contextTokens && *settings.contextTokens > 0) {
        results.best = bestKvPairForContext(prepared, settings, gpus, budget);
    }
    if (!gpus.empty()) {
        results.layers = mostGpuLayers(prepared, settings, gpus, budget);
    }
    if (gpus.size() >= 2) {
        results.split = bestTensorSplit(prepared, settings, gpus, budget);
    }
    Result<std::optional<double>> bandwidth = positiveNumberOption(run.options, "--bandwidth-gbs");
    if (!bandwidth) {
        return run.fail(bandwidth.error());
    }
    if (*bandwidth) {
        // Issue 15 item 4: what each K/V choice costs in decode speed at a full slot.
        const auto bytesPerSecond = static_cast<std::uint64_t>(**bandwidth * 1e9);
        const SpeedEfficiency efficiency =
            defaultSpeedEfficiency(gpus.empty() ? Backend::Cpu : gpus.front().backend, model.isMoe());
        results.bandwidthGBps = *bandwidth;
        for (const ContextFit& fit : results.largest) {
            results.largestSpeeds.push_back(
                fit.fits ? speedWithKvPair(model, settings, fit.typeK, fit.typeV, fit.contextTokens, gpus,
                                           bytesPerSecond, std::nullopt, efficiency)
                         : std::nullopt);
        }
        if (results.best && results.best->fits) {
            results.bestSpeed =
                speedWithKvPair(model, settings, results.best->typeK, results.best->typeV,
                                *settings.contextTokens, gpus, bytesPerSecond, std::nullopt, efficiency);
        }
    }
    if (run.json) {
        printJson(run.io.out, toJson(run.request, budget, results));
    } else {
        printText(run.io.out, run.request, budget, results);
    }
    return kExitOk;
}

} // namespace

int runFitCommand(const std::vector<std::string>& args, const CommandIo& io) {
    const SizingCommand command{.name = "fit",
                                .usage = kFitUsage,
                                .options = {{"--budget-mib", true},
                                            {"--types", true},
                                            {"--all-pairs"},
                                            {"--bandwidth-gbs", true},
                                            {"--as-llama-server"},
                                            {"--as-llama-fit-params"},
                                            {"--host-total-mib", true}}};
    return runSizingCommand(args, io, command, fit);
}

} // namespace llamafit

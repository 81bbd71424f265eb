// fit --as-llama-server; see fitreplicaoutput.h.

#include "app/cli/fitreplicaoutput.h"

#include "app/cli/jsonoutput.h"
#include "core/flags/fitflags.h"
#include "core/system/hostmemory.h"

#include <ostream>

namespace llamafit {

namespace {

std::string_view statusName(FitStatus status) {
    switch (status) {
    case FitStatus::Disabled:
        return "disabled";
    case FitStatus::Unchanged:
        return "unchanged";
    case FitStatus::Fitted:
        return "fitted";
    case FitStatus::Failed:
        break;
    }
    return "failed";
}

Json outcomeJson(const FitOutcome& outcome, FitProgram program) {
    Json overrides = Json::array();
    for (const TensorOverride& item : outcome.tensorOverrides) {
        overrides.push_back({{"pattern", item.pattern}, {"buffer_type", item.bufferType}});
    }
    return {{"program", program == FitProgram::LlamaServer ? "llama-server" : "llama-fit-params"},
            {"status", statusName(outcome.status)},
            {"failure", outcome.failure},
            {"arguments", fitArgumentsText(outcome)},
            {"context_tokens", outcome.contextTokens},
            {"gpu_layers", outcome.gpuLayers},
            {"tensor_split", outcome.tensorSplit},
            {"tensor_overrides", std::move(overrides)},
            {"measurements", outcome.measurements},
            {"trace", outcome.trace}};
}

} // namespace

int runFitReplica(const SizingRun& run, FitProgram program) {
    FitRequest request;
    request.settings = run.request.args.settings;
    request.gpus = run.request.args.gpus;
    request.program = program;
    Result<FitParams> params = readFitParams(run.request.args);
    if (!params) {
        return run.fail(params.error());
    }
    request.params = *params;
    if (const std::optional<std::string> mib = run.options.value("--host-total-mib")) {
        Result<std::uint64_t> bytes = parseMiB("--host-total-mib", *mib);
        if (!bytes) {
            return run.fail(bytes.error());
        }
        request.hostTotalBytes = *bytes;
    } else if (request.gpus.empty()) {
        // ggml's CPU device reports the physical memory as its total (ggml-cpu.cpp, sysconf
        // _SC_PHYS_PAGES), which is MemTotal to the byte.
        Result<HostMemory> host = readHostMemory();
        if (!host) {
            return run.fail(host.error());
        }
        request.hostTotalBytes = host->memTotalBytes;
    }
    Result<FitOutcome> outcome = replicateLlamaFit(run.request.model.info, request);
    if (!outcome) {
        return run.fail(outcome.error());
    }
    if (run.json) {
        Json json = outcomeJson(*outcome, program);
        json["llama_build"] = run.llamaBuild;
        json["sized_for"] = sizedForText(run.llamaBuild);
        run.io.out << json.dump(2) << "\n";
    } else if (outcome->status != FitStatus::Failed) {
        run.io.out << fitArgumentsText(*outcome) << "\n";
    }
    if (outcome->status == FitStatus::Failed) {
        run.io.err << "failed to fit params to free device memory: " << outcome->failure << "\n";
        if (program == FitProgram::LlamaServer) {
            // llama-server does not stop: it loads with what fit left, the user's flags.
            run.io.err << "llama-server goes on with: " << fitArgumentsText(*outcome) << "\n";
        }
        return kExitFitFailed;
    }
    return kExitOk;
}

} // namespace llamafit

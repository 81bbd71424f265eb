#pragma once
// replicateLlamaFit(): what llama.cpp's own --fit chooses for the flags the user left unset --
// the context (-c), the GPU layers (-ngl), the split over several GPUs (-ts) and the MoE tensor
// overrides (-ot) -- restated over estimateMemory(). llama.cpp (common/fit.cpp,
// common_params_fit_impl; on by default in llama-server 0.7.0, b11669) measures each candidate
// with a dry run (a no_alloc load whose per-device model + context + compute bytes it compares
// with the free memory the device reports); here each dry run is one estimate, so the replica
// says what llama-server will pick without loading anything. Pure function: no I/O.
//
// Used by `llamafit-cli fit --as-llama-server`, the GUI's context label ("left unset,
// llama-server will pick -c N") and the tests that hold it against the real llama-fit-params.
// Bytes are std::uint64_t; the targets (-fitt) are MiB as typed.
//
// Error codes: those of estimateMemory() (a measurement llama.cpp would refuse), and
// fit.bad-target (a -fitt list longer than the devices).

#include "core/common/result.h"
#include "core/sizing/estimator.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizingmodel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

// The program whose fit is replicated. They run the same algorithm but measure differently:
// llama-server reserves one logits row per slot and defaults to 4 unified slots, llama-fit-params
// keeps llama.cpp's defaults (n_outputs_max = n_batch, -np 1) and fits even with -fit off.
enum class FitProgram { LlamaServer, LlamaFitParams };

// -fit, -fitt, -fitc (common/arg.cpp; defaults from common/common.h).
struct FitParams {
    bool enabled = true;                   // -fit on|off (llama-fit-params fits either way)
    std::vector<std::uint64_t> targetsMiB; // -fitt: empty = 1024 per device, one value = every device
    std::uint32_t minContextTokens = 4096; // -fitc
    // -c 0 (when no -fitc follows it) asks for the full training context: the fit then never
    // shrinks the context (common/arg.cpp sets fit_params_min_ctx = UINT32_MAX).
    bool fullContextRequested = false;
    bool operator==(const FitParams&) const = default;
};

struct FitRequest {
    ServerSettings settings;          // the user's flags: an unset -c / -ngl is what fit may choose
    std::vector<GpuDevice> gpus;      // memoryBytes = the free memory ggml reports for each device
    std::uint64_t hostTotalBytes = 0; // the CPU device's total memory: the budget when there is no GPU
    FitParams params;
    FitProgram program = FitProgram::LlamaServer;
    bool operator==(const FitRequest&) const = default;
};

enum class FitStatus {
    Disabled,  // -fit off (llama-server only): nothing changes
    Unchanged, // every device keeps its target free: "no changes needed"
    Fitted,    // fit changed -c and/or -ngl, -ts, -ot
    Failed,    // fit gave up (failure says llama.cpp's reason); llama-fit-params exits 1
};

// What llama-server will run with after its fit, and how it got there.
struct FitOutcome {
    FitStatus status = FitStatus::Unchanged;
    std::string failure; // Failed: llama.cpp's reason, "n_gpu_layers already set by user to 99, abort"
    std::uint32_t contextTokens = 0; // cparams.n_ctx as fit leaves it (the training context when -c is unset)
    std::int32_t gpuLayers = -1;     // mparams.n_gpu_layers as llama.cpp prints it (-1 default, -2 all)
    std::vector<std::uint32_t> tensorSplit;      // layers per GPU, when fit split over more than one
    std::vector<TensorOverride> tensorOverrides; // fit's own -ot, in llama.cpp's order
    ServerSettings settings;                     // the request's settings with the above applied
    std::vector<std::string> trace;              // llama.cpp's steps, worded like its log
    std::uint32_t measurements = 0;              // dry runs (estimates) taken
    bool operator==(const FitOutcome&) const = default;
};

Result<FitOutcome> replicateLlamaFit(const SizingModel& model, const FitRequest& request);
Result<FitOutcome> replicateLlamaFit(const ModelInfo& model, const FitRequest& request);

// The arguments as llama-fit-params prints them on stdout (tools/fit-params/fit-params.cpp):
// "-c 116224 -ngl -1", then " -ts 10,3" and " -ot \"PATTERN=BUFT,...\"" when fit set them.
std::string fitArgumentsText(const FitOutcome& outcome);

// The settings `program` measures for the user's `settings` (one home for the rule: the fit
// replica and the projection check use it): llama-fit-params keeps llama.cpp's defaults (-np 1 and
// n_outputs_max = n_batch), llama-server its own (-np auto, one logits row per slot); both measure
// fit's graphs (ServerSettings::fitMeasurement).
ServerSettings fitMeasuredSettings(const ServerSettings& settings, FitProgram program);

// llama.cpp's measurement of one device for fit: model + context (KV and RS) + compute bytes of
// the device's buffers (the output buffer and LlamaFit's overhead allowance are not in
// llama_get_memory_breakdown, and CPU_REPACK is counted nowhere). Index 0..n-1: the GPUs; the
// last entry: every host buffer.
std::vector<std::uint64_t> fitProjection(const MemoryEstimate& estimate);

} // namespace llamafit

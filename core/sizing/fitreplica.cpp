// The fit replica's driver: steps 1 and 2 of llama.cpp common/fit.cpp common_params_fit_impl
// (b11669) -- measure, stop when every device keeps its target free, shrink an unset context --
// then the checks that end the fit when the user owns the layer flags, then the layer steps
// (fitlayers.cpp, fitmoe.cpp). The output format is tools/fit-params/fit-params.cpp's.

#include "core/sizing/fitreplica.h"

#include "core/common/units.h"
#include "core/sizing/fitmeasure.h"

#include <algorithm>
#include <limits>

namespace llamafit {

namespace {

// Signed: margins and surpluses go below zero.
constexpr std::int64_t kSignedMiB = static_cast<std::int64_t>(kMiB);
constexpr std::uint64_t kDefaultTargetMiB = 1024; // common/common.h fit_params_target
constexpr std::uint32_t kNoMinimum = std::numeric_limits<std::uint32_t>::max();

// -fitt: one value for every device, else one per device (missing ones keep the default).
// Without GPUs only the first counts (the host).
std::vector<std::int64_t> marginBytes(const FitParams& params, std::size_t deviceCount) {
    std::vector<std::int64_t> margins(std::max<std::size_t>(deviceCount, 1), kDefaultTargetMiB * kSignedMiB);
    for (std::size_t i = 0; i < margins.size(); ++i) {
        if (params.targetsMiB.size() == 1) {
            margins[i] = static_cast<std::int64_t>(params.targetsMiB[0]) * kSignedMiB;
        } else if (i < params.targetsMiB.size()) {
            margins[i] = static_cast<std::int64_t>(params.targetsMiB[i]) * kSignedMiB;
        }
    }
    return margins;
}

// mparams.n_gpu_layers as llama.cpp holds it: -1 unless the user set -ngl.
std::int32_t gpuLayersValue(const std::optional<GpuLayers>& layers) {
    if (!layers || layers->kind() == GpuLayers::Kind::Auto) {
        return -1;
    }
    return layers->kind() == GpuLayers::Kind::All ? -2 : static_cast<std::int32_t>(layers->layerCount());
}

std::int64_t sumOf(const std::vector<std::int64_t>& values, std::size_t count) {
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < count; ++i) {
        sum += values[i];
    }
    return sum;
}

std::string mib(std::int64_t bytes) {
    return std::to_string(bytes / kSignedMiB);
}

FitOutcome failed(FitOutcome outcome, std::string reason) {
    outcome.status = FitStatus::Failed;
    outcome.failure = std::move(reason);
    return outcome;
}

// Step 2: the context llama.cpp interpolates when -c is unset and the total is over target.
// Returns true when that alone is the fit (one device or none).
Result<bool> shrinkContext(fit::Measurer& measurer, const ModelInfo& model, ServerSettings& measured,
                           const std::vector<std::int64_t>& full, std::int64_t sumModel,
                           const std::vector<std::int64_t>& margins, std::int64_t sumFree,
                           std::uint32_t nCtxMax, std::uint32_t minTotal, std::uint32_t streams,
                           std::vector<std::string>& trace) {
    const std::size_t nd = measurer.deviceCount();
    const std::int64_t sumUsed = nd == 0 ? full.back() : sumOf(full, nd);
    std::int64_t usedTarget = sumFree - sumOf(margins, margins.size());
    if (nd > 1) {
        // Several devices waste part of a layer each (dense: whole layers, MoE: whole tensors);
        // llama.cpp keeps back (nd + 1) halves (dense) or sixths (MoE) of a layer's weights.
        const auto requested = static_cast<std::uint32_t>(gpuLayersValue(measured.gpuLayers));
        const std::uint32_t layers = std::max<std::uint32_t>(std::min(requested, model.trunkLayerCount()), 1);
        usedTarget -= static_cast<std::int64_t>(nd + 1) * (sumModel / layers) / (model.isMoe() ? 6 : 2);
    }
    measured.contextTokens = minTotal;
    Result<std::vector<std::int64_t>> atMin = measurer.measure(measured);
    if (!atMin) {
        return atMin.error();
    }
    const std::int64_t usedMin = nd == 0 ? atMin->back() : sumOf(*atMin, nd);
    if (usedTarget > usedMin && nCtxMax > minTotal && sumUsed > usedMin) {
        // Linear in context between the minimum and the maximum, rounded down to 256 per stream.
        std::uint32_t nCtx =
            minTotal + static_cast<std::uint32_t>(static_cast<std::int64_t>(nCtxMax - minTotal) *
                                                  (usedTarget - usedMin) / (sumUsed - usedMin));
        const std::uint32_t align = 256 * streams;
        nCtx = std::max(nCtx - nCtx % align, minTotal);
        measured.contextTokens = nCtx;
        const std::int64_t perToken = (sumUsed - usedMin) / (nCtxMax - minTotal);
        trace.push_back("context size reduced from " + std::to_string(nCtxMax) + " to " +
                        std::to_string(nCtx) + " -> need " +
                        mib(static_cast<std::int64_t>(nCtxMax - nCtx) * perToken) +
                        " MiB less memory in total");
        if (nd <= 1) {
            trace.push_back("entire model can be fit by reducing context");
            return true;
        }
        trace.push_back("entire model should be fit across devices by reducing context");
        return false;
    }
    trace.push_back("context size reduced from " + std::to_string(nCtxMax) + " to " +
                    std::to_string(minTotal) + " -> need " + mib(sumUsed - usedMin) +
                    " MiB less memory in total");
    return false;
}

} // namespace

ServerSettings fitMeasuredSettings(const ServerSettings& settings, FitProgram program) {
    ServerSettings measured = settings;
    measured.fitMeasurement = true;
    if (program == FitProgram::LlamaFitParams) {
        measured.parallelSlots = settings.parallelSlots.value_or(1);
        measured.outputReserve = OutputReserve::PerBatch;
    }
    return measured;
}

std::vector<std::uint64_t> fitProjection(const MemoryEstimate& estimate) {
    std::vector<std::uint64_t> gpus;
    std::uint64_t host = 0;
    for (const DeviceEstimate& device : estimate.devices) {
        // llama_get_memory_breakdown: model, context (KV + RS) and compute per buffer type; the
        // output buffer is not in it. Host buffer types (CPU, CPU_Mapped, Vulkan_Host, ...) count as
        // the host. CPU_REPACK is neither a host buffer type nor one of the model's devices, so
        // common/fit.cpp counts it nowhere (measured: gpt-oss's 9682 MiB of repacked experts are
        // left out of "projected to use").
        std::uint64_t bytes = 0;
        for (const BufferEstimate& buffer : device.buffers) {
            const bool counted = buffer.component == Component::Model || buffer.component == Component::Kv ||
                                 buffer.component == Component::Rs || buffer.component == Component::Compute;
            const bool repacked = buffer.bufferType.ends_with("_REPACK");
            bytes += counted && !repacked ? buffer.bytes : 0;
        }
        if (device.host) {
            host += bytes;
        } else {
            gpus.push_back(bytes);
        }
    }
    gpus.push_back(host);
    return gpus;
}

Result<FitOutcome> replicateLlamaFit(const ModelInfo& model, const FitRequest& request) {
    return replicateLlamaFit(prepareModel(model), request);
}

Result<FitOutcome> replicateLlamaFit(const SizingModel& sizingModel, const FitRequest& request) {
    const ModelInfo& model = sizingModel.model();
    FitOutcome outcome;
    outcome.settings = request.settings;
    outcome.gpuLayers = gpuLayersValue(request.settings.gpuLayers);
    ServerSettings measured = fitMeasuredSettings(request.settings, request.program);
    const bool contextAuto = measured.contextTokens.value_or(0) == 0;
    outcome.contextTokens = contextAuto ? model.trainingContext : *measured.contextTokens;
    if (request.program == FitProgram::LlamaServer && !request.params.enabled) {
        outcome.status = FitStatus::Disabled;
        return outcome;
    }

    Result<ResolvedContext> context = resolveContext(model, measured);
    if (!context) {
        return context.error();
    }
    // With separate KV streams per slot, the context is per stream times the streams.
    const std::uint32_t streams = context->kvUnified ? 1 : std::max<std::uint32_t>(1, context->nSeqMax);
    const auto saturated = [](std::uint64_t v) {
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, kNoMinimum));
    };
    const std::uint32_t nCtxMax = saturated(std::uint64_t{model.trainingContext} * streams);
    const std::uint32_t minTotal = request.params.fullContextRequested
                                       ? kNoMinimum
                                       : saturated(std::uint64_t{request.params.minContextTokens} * streams);

    fit::Measurer measurer(sizingModel, request.gpus);
    const std::size_t nd = request.gpus.size();
    // Step 1: measure the user's settings (-c unset: the training context for every stream).
    if (contextAuto) {
        measured.contextTokens = nCtxMax;
        outcome.contextTokens = nCtxMax;
    }
    Result<MemoryEstimate> fullEstimate = estimateMemory(sizingModel, measured, request.gpus);
    if (!fullEstimate) {
        return fullEstimate.error();
    }
    std::vector<std::int64_t> full;
    for (std::uint64_t bytes : fitProjection(*fullEstimate)) {
        full.push_back(static_cast<std::int64_t>(bytes));
    }
    std::int64_t sumModel = 0; // the weights on the GPUs
    for (const DeviceEstimate& device : fullEstimate->devices) {
        sumModel += device.host ? 0 : static_cast<std::int64_t>(device.bytes.modelBytes);
    }
    const std::vector<std::int64_t> margins = marginBytes(request.params, nd);
    std::vector<std::int64_t> freeBytes;
    for (const GpuDevice& gpu : request.gpus) {
        freeBytes.push_back(static_cast<std::int64_t>(gpu.memoryBytes));
    }

    std::int64_t sumFree = 0;
    std::int64_t sumProjectedFree = 0;
    bool changesNeeded = false;
    if (nd == 0) {
        sumFree = static_cast<std::int64_t>(request.hostTotalBytes);
        sumProjectedFree = sumFree - full[0];
        outcome.trace.push_back("projected to use " + mib(full[0]) + " MiB of host memory vs. " +
                                mib(sumFree) + " MiB of total host memory");
        changesNeeded = sumProjectedFree < margins[0];
    } else {
        for (std::size_t id = 0; id < nd; ++id) {
            sumFree += freeBytes[id];
            sumProjectedFree += freeBytes[id] - full[id];
            changesNeeded = changesNeeded || freeBytes[id] - full[id] < margins[id];
        }
        outcome.trace.push_back("projected to use " + mib(sumOf(full, nd)) + " MiB of device memory vs. " +
                                mib(sumFree) + " MiB of free device memory");
    }
    if (!changesNeeded) {
        outcome.status = FitStatus::Unchanged;
        outcome.trace.push_back("no changes needed");
        outcome.settings.contextTokens =
            contextAuto ? std::optional<std::uint32_t>(nCtxMax) : measured.contextTokens;
        return outcome;
    }

    // Step 2: only an unset context is shrunk.
    if (sumProjectedFree - sumOf(margins, margins.size()) < 0) {
        if (!contextAuto) {
            outcome.trace.push_back("context size set by user to " + std::to_string(*measured.contextTokens) +
                                    " -> no change");
        } else if (nCtxMax > minTotal) {
            Result<bool> done = shrinkContext(measurer, model, measured, full, sumModel, margins, sumFree,
                                              nCtxMax, minTotal, streams, outcome.trace);
            if (!done) {
                return done.error();
            }
            outcome.contextTokens = *measured.contextTokens;
            outcome.settings.contextTokens = measured.contextTokens;
            if (*done) {
                outcome.status = FitStatus::Fitted;
                outcome.measurements = measurer.measurements() + 1;
                return outcome;
            }
        } else {
            outcome.trace.push_back(minTotal == kNoMinimum
                                        ? "user has requested full context size of " +
                                              std::to_string(nCtxMax) + " -> no change"
                                        : "default model context size is " + std::to_string(nCtxMax) +
                                              " which is <= the min. context size of " +
                                              std::to_string(minTotal) + " -> no change");
        }
    }
    outcome.contextTokens = measured.contextTokens.value_or(nCtxMax);
    outcome.settings.contextTokens = outcome.contextTokens;
    outcome.measurements = measurer.measurements() + 1;
    if (nd == 0) {
        return failed(outcome, "was unable to fit model into system memory by reducing context, abort");
    }
    // The layer flags are the user's once set: llama.cpp gives up rather than override them.
    if (outcome.gpuLayers != -1) {
        return failed(outcome,
                      "n_gpu_layers already set by user to " + std::to_string(outcome.gpuLayers) + ", abort");
    }
    if (nd > 1 && std::any_of(measured.tensorSplit.begin(), measured.tensorSplit.end(),
                              [](double share) { return share != 0.0; })) {
        return failed(outcome, "model_params::tensor_split already set by user, abort");
    }
    if (!measured.tensorOverrides.empty() || measured.cpuMoe || measured.cpuMoeLayers > 0) {
        return failed(outcome, "model_params::tensor_buft_overrides already set by user, abort");
    }

    // Steps 3 and 4: the most layers each device's target allows.
    std::vector<std::int64_t> targets;
    for (std::size_t id = 0; id < nd; ++id) {
        targets.push_back(freeBytes[id] - margins[id]);
    }
    Result<fit::LayerLayout> layout =
        fit::fitLayers(measurer, measured, model.trunkLayerCount(), model.isMoe(), targets, outcome.trace);
    if (!layout) {
        return layout.error();
    }
    fit::applyLayout(*layout, model.trunkLayerCount(), outcome.settings, outcome.tensorOverrides);
    outcome.gpuLayers = static_cast<std::int32_t>(outcome.settings.gpuLayers->layerCount());
    for (double share : outcome.settings.tensorSplit) {
        outcome.tensorSplit.push_back(static_cast<std::uint32_t>(share));
    }
    outcome.status = FitStatus::Fitted;
    outcome.measurements = measurer.measurements() + 1;
    return outcome;
}

std::string fitArgumentsText(const FitOutcome& outcome) {
    std::string text =
        "-c " + std::to_string(outcome.contextTokens) + " -ngl " + std::to_string(outcome.gpuLayers);
    // fit-params.cpp: trailing zero shares are dropped, and -ts only printed for two or more.
    std::size_t shares = outcome.tensorSplit.size();
    while (shares > 1 && outcome.tensorSplit[shares - 1] == 0) {
        --shares;
    }
    if (shares > 1) {
        text += " -ts ";
        for (std::size_t i = 0; i < shares; ++i) {
            text += (i > 0 ? "," : "") + std::to_string(outcome.tensorSplit[i]);
        }
    }
    if (!outcome.tensorOverrides.empty()) {
        text += " -ot \"";
        for (std::size_t i = 0; i < outcome.tensorOverrides.size(); ++i) {
            const TensorOverride& item = outcome.tensorOverrides[i];
            text += (i > 0 ? "," : "") + item.pattern + "=" + item.bufferType;
        }
        text += "\"";
    }
    return text;
}

} // namespace llamafit

// The context sweep's numbers; see contextsweep.h.
#include "core/sizing/contextsweep.h"

#include "core/sizing/contextstops.h"
#include "core/sizing/estimator.h"
#include "core/sizing/sweepgrid.h"

namespace llamafit {

namespace {

std::uint64_t deviceTotal(const MemoryEstimate& estimate, const std::string& deviceName) {
    for (const DeviceEstimate& device : estimate.devices) {
        if (device.name == deviceName) {
            return device.bytes.totalBytes();
        }
    }
    return 0;
}

} // namespace

std::vector<std::uint32_t> sweepContexts(std::uint64_t trainingContext) {
    return ContextStops(trainingContext).tokens(); // the context slider's own stops
}

bool sweepOnGpu(const SizingModel& model, const ServerSettings& settings,
                const std::vector<GpuDevice>& gpus) {
    if (gpus.empty()) {
        return false;
    }
    const Result<MemoryEstimate> estimate = estimateMemory(model, settings, gpus);
    return estimate.ok() ? estimate->gpuLayers > 0
                         : settings.gpuLayers.value_or(GpuLayers::automatic()) != GpuLayers::count(0);
}

SweepData computeSweep(const SizingModel& model, const ServerSettings& settings,
                       const std::vector<GpuDevice>& gpus, const MemoryBudget& budget,
                       const std::vector<KvPair>& pairs) {
    SweepData data;
    data.onGpu = sweepOnGpu(model, settings, gpus);
    data.deviceName = data.onGpu ? gpus.front().name : std::string("CPU");
    data.budgetBytes =
        data.onGpu ? (budget.gpuBytes.empty() ? 0 : budget.gpuBytes.front()) : budget.hostBytes;
    // The solver itself, with the same settings, GPUs, budget and pairs: its answer is the
    // chart's marker, by construction.
    data.fits = largestContextPerKvPair(model, settings, gpus, budget, pairs);
    const SweepGrid grid =
        estimateSweepGrid(model, settings, gpus, sweepContexts(model.model().trainingContext), pairs);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        SweepSeries series;
        series.pair = pairs[i];
        series.fit = data.fits[i];
        for (std::size_t c = 0; c < grid.contexts.size(); ++c) {
            const Result<MemoryEstimate>& estimate = grid.at(c, i);
            if (!estimate.ok()) {
                // Type refusals (block size, -fa off, MLA) do not depend on the context.
                series.refused = true;
                series.refusal = estimate.error();
                series.contexts.clear();
                series.deviceBytes.clear();
                break;
            }
            series.contexts.push_back(grid.contexts[c]);
            series.deviceBytes.push_back(deviceTotal(*estimate, data.deviceName));
        }
        if (!series.refused && series.fit.fits) {
            ServerSettings trial = settings;
            trial.cacheTypeK = pairs[i].first;
            trial.cacheTypeV = pairs[i].second;
            trial.contextTokens = series.fit.contextTokens;
            const Result<MemoryEstimate> estimate = estimateMemory(model, trial, gpus);
            series.fitDeviceBytes = estimate.ok() ? deviceTotal(*estimate, data.deviceName) : 0;
        }
        data.series.push_back(std::move(series));
    }
    return data;
}

} // namespace llamafit

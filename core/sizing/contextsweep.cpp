// The context sweep's numbers; see contextsweep.h.
#include "core/sizing/contextsweep.h"

#include "core/sizing/contextstops.h"
#include "core/sizing/estimator.h"
#include "core/sizing/sweepgrid.h"

#include <cstddef>
#include <optional>

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

// The GPU with the least room left under its budget at the current settings: the likeliest to run
// out first as the context grows (an approximation: each device's K/V grows with its share of the
// layers, so a roomier device with a larger share can still overtake it; the markers come from
// the solver, which checks every device). With several GPUs (RPC hosts in front of the local GPUs,
// --rpc; or -ts) the first in llama.cpp's order is often a small server with a small share, not
// the constraint. A GPU without a budget (0) never constrains. The first GPU when the estimate
// fails.
std::size_t constrainingGpu(const SizingModel& model, const ServerSettings& settings,
                            const std::vector<GpuDevice>& gpus, const MemoryBudget& budget) {
    const Result<MemoryEstimate> estimate = estimateMemory(model, settings, gpus);
    if (!estimate.ok() || gpus.size() < 2) {
        return 0;
    }
    std::size_t tightest = 0;
    std::optional<std::int64_t> tightestRoom;
    for (std::size_t i = 0; i < gpus.size() && i < budget.gpuBytes.size(); ++i) {
        if (budget.gpuBytes[i] == 0) {
            continue;
        }
        const std::int64_t room = static_cast<std::int64_t>(budget.gpuBytes[i]) -
                                  static_cast<std::int64_t>(deviceTotal(*estimate, gpus[i].name));
        if (!tightestRoom || room < *tightestRoom) {
            tightest = i;
            tightestRoom = room;
        }
    }
    return tightest;
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
    const std::size_t gpu = data.onGpu ? constrainingGpu(model, settings, gpus, budget) : 0;
    data.deviceName = data.onGpu ? gpus[gpu].name : std::string("CPU");
    data.budgetBytes =
        data.onGpu ? (gpu < budget.gpuBytes.size() ? budget.gpuBytes[gpu] : 0) : budget.hostBytes;
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

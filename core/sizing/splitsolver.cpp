// The -ts that fits the largest context; see splitsolver.h.
#include "core/sizing/splitsolver.h"

#include "core/sizing/layerplacement.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace llamafit {

namespace {

constexpr std::uint32_t kContextStep = 256; // the solvers' -c grid (solvers.h)

// What each GPU has left under its budget (negative: over), in the order of `gpus`; a device
// without a budget has all the room there is. nullopt when llama-server refuses the settings or
// the host is over its own budget (no split of the GPU layers changes that much).
std::optional<std::vector<double>> slackPerGpu(const SizingModel& model, const ServerSettings& settings,
                                               const std::vector<GpuDevice>& gpus,
                                               const MemoryBudget& budget) {
    Result<MemoryEstimate> estimate = estimateMemory(model, settings, gpus);
    if (!estimate) {
        return std::nullopt;
    }
    std::vector<double> slack(gpus.size(), std::numeric_limits<double>::infinity());
    for (std::size_t i = 1; i < estimate->devices.size() && i - 1 < gpus.size(); ++i) {
        const std::uint64_t limit = i - 1 < budget.gpuBytes.size() ? budget.gpuBytes[i - 1] : 0;
        if (limit != 0) {
            slack[i - 1] =
                static_cast<double>(limit) - static_cast<double>(estimate->devices[i].bytes.totalBytes());
        }
    }
    if (budget.hostBytes != 0 && !estimate->devices.empty() &&
        estimate->devices[0].bytes.totalBytes() > budget.hostBytes) {
        return std::nullopt;
    }
    return slack;
}

double worst(const std::vector<double>& slack) {
    return *std::min_element(slack.begin(), slack.end());
}

ServerSettings withSplit(ServerSettings settings, const std::vector<std::uint32_t>& layers,
                         std::uint32_t context) {
    settings.tensorSplit.assign(layers.begin(), layers.end());
    settings.contextTokens = context;
    return settings;
}

// A split of `total` layers that fits at `context`, searched from the split by budget: move one
// layer at a time from the device with the least room to the one with the most while that helps
// the tightest device. nullopt when none is found.
std::optional<std::vector<std::uint32_t>>
fittingSplit(const SizingModel& model, const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
             const MemoryBudget& budget, std::uint32_t total, std::uint32_t context) {
    // Start by the budgets (the free memory, as llama.cpp would), largest remainder rounding.
    std::vector<double> weights;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        const std::uint64_t limit =
            i < budget.gpuBytes.size() && budget.gpuBytes[i] != 0 ? budget.gpuBytes[i] : gpus[i].memoryBytes;
        weights.push_back(static_cast<double>(std::max<std::uint64_t>(limit, 1)));
    }
    const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<std::uint32_t> layers(gpus.size(), 0);
    std::uint32_t given = 0;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        layers[i] = static_cast<std::uint32_t>(weights[i] / sum * total);
        given += layers[i];
    }
    for (std::size_t i = 0; given < total; i = (i + 1) % gpus.size(), ++given) {
        ++layers[i];
    }
    std::optional<std::vector<double>> slack =
        slackPerGpu(model, withSplit(settings, layers, context), gpus, budget);
    for (std::uint32_t step = 0; slack && step < total * gpus.size(); ++step) {
        if (worst(*slack) >= 0) {
            return layers;
        }
        const auto tightest =
            static_cast<std::size_t>(std::min_element(slack->begin(), slack->end()) - slack->begin());
        const auto roomiest =
            static_cast<std::size_t>(std::max_element(slack->begin(), slack->end()) - slack->begin());
        if (tightest == roomiest || layers[tightest] == 0) {
            return std::nullopt;
        }
        std::vector<std::uint32_t> moved = layers;
        --moved[tightest];
        ++moved[roomiest];
        std::optional<std::vector<double>> next =
            slackPerGpu(model, withSplit(settings, moved, context), gpus, budget);
        if (!next || worst(*next) <= worst(*slack)) {
            return std::nullopt; // no single move helps the tightest device any more
        }
        layers = std::move(moved);
        slack = std::move(next);
    }
    return slack && worst(*slack) >= 0 ? std::optional(layers) : std::nullopt;
}

// The largest multiple of 256 in [1 step, `maxSteps` steps] for which `fits` holds (memory grows
// with the context: binary search), or 0 when even one step does not.
template <typename Fits> std::uint32_t largestSteps(std::uint32_t maxSteps, Fits fits) {
    if (!fits(1)) {
        return 0;
    }
    std::uint32_t good = 1;
    std::uint32_t bad = maxSteps + 1;
    while (bad - good > 1) {
        const std::uint32_t middle = good + (bad - good) / 2;
        (fits(middle) ? good : bad) = middle;
    }
    return good;
}

} // namespace

SplitFit bestTensorSplit(const SizingModel& model, const ServerSettings& settings,
                         const std::vector<GpuDevice>& gpus, const MemoryBudget& budget) {
    SplitFit fit;
    if (gpus.size() < 2) {
        return fit;
    }
    Result<LayerPlacement> placement = placeLayers(model.model(), settings, gpus);
    if (!placement || placement->gpuLayers == 0) {
        return fit;
    }
    const std::uint32_t total = placement->gpuLayers;
    const auto maxSteps =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, model.model().trainingContext / kContextStep));

    ServerSettings byDefault = settings;
    byDefault.tensorSplit.clear();
    const std::uint32_t defaultSteps = largestSteps(maxSteps, [&](std::uint32_t steps) {
        byDefault.contextTokens = steps * kContextStep;
        Result<MemoryEstimate> estimate = estimateMemory(model, byDefault, gpus);
        return estimate && fitsBudget(*estimate, budget);
    });
    if (defaultSteps > 0) {
        fit.defaultSplitContextTokens = defaultSteps * kContextStep;
    }

    std::vector<std::uint32_t> best;
    const std::uint32_t steps = largestSteps(maxSteps, [&](std::uint32_t candidate) {
        std::optional<std::vector<std::uint32_t>> layers =
            fittingSplit(model, settings, gpus, budget, total, candidate * kContextStep);
        if (layers) {
            best = *layers;
        }
        return layers.has_value();
    });
    if (steps == 0) {
        return fit;
    }
    // `best` is from the last context that fitted, which binary search may have left for a smaller
    // one: solve the answer's context once more.
    best = *fittingSplit(model, settings, gpus, budget, total, steps * kContextStep);
    const ServerSettings chosen = withSplit(settings, best, steps * kContextStep);
    Result<MemoryEstimate> estimate = estimateMemory(model, chosen, gpus);
    fit.fits = true;
    fit.tensorSplit = chosen.tensorSplit;
    fit.contextTokens = steps * kContextStep;
    fit.totalBytes = estimate ? estimate->totals.totalBytes() : 0;
    return fit;
}

} // namespace llamafit

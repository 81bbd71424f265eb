// Solvers over estimateMemory(). Each one only calls the estimator, so whatever the estimator
// knows (SWA, hybrids, GPUs) the solvers know too.
#include "core/sizing/solvers.h"

#include <algorithm>
#include <utility>

namespace llamafit {
namespace {

// Quality of a cache type for bestKvPairForContext: lower is better; f16 and bf16 tie.
int qualityRank(GgmlType type) {
    switch (type) {
    case GgmlType::F32:
        return 0;
    case GgmlType::F16:
    case GgmlType::BF16:
        return 1;
    case GgmlType::Q8_0:
        return 2;
    case GgmlType::Q5_1:
        return 3;
    case GgmlType::Q5_0:
        return 4;
    case GgmlType::Q4_1:
        return 5;
    case GgmlType::IQ4_NL:
        return 6;
    case GgmlType::Q4_0:
        return 7;
    default:
        return 99;
    }
}

} // namespace

std::optional<BudgetOverrun> firstOverrun(const MemoryEstimate& estimate, const MemoryBudget& budget) {
    for (std::size_t i = 0; i < estimate.devices.size(); ++i) {
        const std::uint64_t limit =
            i == 0 ? budget.hostBytes : (i - 1 < budget.gpuBytes.size() ? budget.gpuBytes[i - 1] : 0);
        const std::uint64_t used = estimate.devices[i].bytes.totalBytes();
        if (limit != 0 && used > limit) {
            return BudgetOverrun{estimate.devices[i].name, used, limit};
        }
    }
    return std::nullopt;
}

bool fitsBudget(const MemoryEstimate& estimate, const MemoryBudget& budget) {
    // Settings at which llama-server aborts fit no budget.
    return estimate.serverAborts.empty() && !firstOverrun(estimate, budget).has_value();
}

// The ModelInfo forms prepare the model once: each solver runs tens to hundreds of estimates.
std::vector<ContextFit> largestContextPerKvPair(const ModelInfo& model, const ServerSettings& settings,
                                                const std::vector<GpuDevice>& gpus,
                                                const MemoryBudget& budget,
                                                std::vector<std::pair<GgmlType, GgmlType>> pairs) {
    return largestContextPerKvPair(prepareModel(model), settings, gpus, budget, std::move(pairs));
}

ContextFit bestKvPairForContext(const ModelInfo& model, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const MemoryBudget& budget) {
    return bestKvPairForContext(prepareModel(model), settings, gpus, budget);
}

GpuLayerFit mostGpuLayers(const ModelInfo& model, const ServerSettings& settings,
                          const std::vector<GpuDevice>& gpus, const MemoryBudget& budget) {
    if (gpus.empty()) {
        return {}; // no estimate to run, nothing to prepare
    }
    return mostGpuLayers(prepareModel(model), settings, gpus, budget);
}

std::vector<ContextFit> largestContextPerKvPair(const SizingModel& model, const ServerSettings& settings,
                                                const std::vector<GpuDevice>& gpus,
                                                const MemoryBudget& budget,
                                                std::vector<std::pair<GgmlType, GgmlType>> pairs) {
    if (pairs.empty()) {
        for (GgmlType k : allowedCacheTypes()) {
            for (GgmlType v : allowedCacheTypes()) {
                pairs.emplace_back(k, v);
            }
        }
    }
    // Candidates are -c = 256 * steps, up to the training context (at least one step).
    const std::uint32_t maxSteps =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, model.model().trainingContext / 256));
    std::vector<ContextFit> out;
    for (const auto& [typeK, typeV] : pairs) {
        ContextFit fit;
        fit.typeK = typeK;
        fit.typeV = typeV;
        ServerSettings trial = settings;
        trial.cacheTypeK = typeK;
        trial.cacheTypeV = typeV;
        auto at = [&](std::uint32_t steps) {
            trial.contextTokens = steps * 256;
            return estimateMemory(model, trial, gpus);
        };
        auto smallest = at(1);
        if (!smallest.ok()) {
            fit.failure = FitFailure::Refused;
            fit.refusal = smallest.error();
            out.push_back(fit);
            continue;
        }
        if (const std::optional<BudgetOverrun> overrun = firstOverrun(smallest.value(), budget)) {
            fit.failure = FitFailure::OverBudgetAtSmallest;
            fit.overrun = *overrun;
            fit.totalBytes = smallest->totals.totalBytes();
            out.push_back(fit);
            continue;
        }
        // Memory grows with the context, so binary search the last step that fits.
        std::uint32_t good = 1;
        std::uint64_t goodBytes = smallest->totals.totalBytes();
        std::uint32_t bad = maxSteps + 1;
        while (bad - good > 1) {
            const std::uint32_t mid = good + (bad - good) / 2;
            auto estimate = at(mid);
            if (estimate.ok() && fitsBudget(estimate.value(), budget)) {
                good = mid;
                goodBytes = estimate->totals.totalBytes();
            } else {
                bad = mid;
            }
        }
        fit.fits = true;
        fit.contextTokens = good * 256;
        fit.totalBytes = goodBytes;
        out.push_back(fit);
    }
    return out;
}

ContextFit bestKvPairForContext(const SizingModel& model, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const MemoryBudget& budget) {
    // K is kept at least as precise as V (quantizing K hurts more); better pairs first: by the sum
    // of the two ranks, then by K's rank; f16 before bf16 on ties (allowedCacheTypes order).
    std::vector<std::pair<GgmlType, GgmlType>> pairs;
    for (GgmlType k : allowedCacheTypes()) {
        for (GgmlType v : allowedCacheTypes()) {
            if (qualityRank(k) <= qualityRank(v)) {
                pairs.emplace_back(k, v);
            }
        }
    }
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
        const int sumA = qualityRank(a.first) + qualityRank(a.second);
        const int sumB = qualityRank(b.first) + qualityRank(b.second);
        return sumA != sumB ? sumA < sumB : qualityRank(a.first) < qualityRank(b.first);
    });
    const std::uint32_t contextTokens = settings.contextTokens.value_or(0) == 0
                                            ? static_cast<std::uint32_t>(model.model().trainingContext)
                                            : *settings.contextTokens;
    ContextFit best;
    best.contextTokens = contextTokens;
    best.failure = FitFailure::NoPairAccepted;
    for (const auto& [typeK, typeV] : pairs) {
        ServerSettings trial = settings;
        trial.cacheTypeK = typeK;
        trial.cacheTypeV = typeV;
        auto estimate = estimateMemory(model, trial, gpus);
        if (!estimate.ok()) {
            continue; // e.g. a quantized V with -fa off, or a head dim the block does not divide
        }
        const std::optional<BudgetOverrun> overrun = firstOverrun(estimate.value(), budget);
        if (!overrun) {
            ContextFit fit;
            fit.typeK = typeK;
            fit.typeV = typeV;
            fit.fits = true;
            fit.contextTokens = contextTokens;
            fit.totalBytes = estimate->totals.totalBytes();
            return fit;
        }
        best.failure = FitFailure::OverBudget;
        best.overrun = *overrun;
        best.typeK = typeK;
        best.typeV = typeV;
        best.totalBytes = estimate->totals.totalBytes();
    }
    return best;
}

GpuLayerFit mostGpuLayers(const SizingModel& model, const ServerSettings& settings,
                          const std::vector<GpuDevice>& gpus, const MemoryBudget& budget) {
    if (gpus.empty()) {
        return {};
    }
    // Not monotone in general (the compute buffer jumps when the first block moves), so walk
    // down from every layer plus the output layer; each estimate is cheap.
    ServerSettings trial = settings;
    for (int layers = static_cast<int>(model.model().blockCount) + 1; layers >= 0; --layers) {
        trial.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(layers));
        auto estimate = estimateMemory(model, trial, gpus);
        if (estimate.ok() && fitsBudget(estimate.value(), budget)) {
            return {true, layers, estimate->totals.totalBytes()};
        }
    }
    return {};
}

} // namespace llamafit

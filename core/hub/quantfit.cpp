// A repo's quants against a machine; see quantfit.h.

#include "core/hub/quantfit.h"

#include "core/machine/machinebudget.h"

namespace llamafit {

namespace {

QuantFitRow rowFor(const QuantCandidate& candidate, const ServerSettings& asked, const Machine& machine,
                   const PlacementOptions& placement, const std::vector<KvPair>& pairs,
                   const std::function<SpeedEfficiency(bool moe)>& efficiency) {
    QuantFitRow row;
    row.quant = candidate.quant;
    if (!candidate.model) {
        row.error = candidate.model.error();
        return row;
    }
    const ModelInfo& model = *candidate.model;
    ServerSettings settings = asked;
    CompanionModels companions;
    if (candidate.projector) {
        // Launch passes the paired projector (--mmproj): its buffers are part of the answer.
        settings.projector.path = candidate.quant.projector->path;
        companions.projector = *candidate.projector;
    }
    const std::vector<GpuDevice> gpus = sizingGpus(machine);
    const SizingModel prepared = prepareModel(model, companions);
    Result<MemoryEstimate> estimate = estimateMemory(prepared, settings, gpus);
    if (!estimate) {
        row.error = estimate.error();
        return row;
    }
    row.contextTokens = estimate->context.nCtx;
    row.verdict = placeOnMachine(*estimate, settings, model, machine, placement).verdict;
    row.largestContext = largestContextPerKvPair(prepared, settings, gpus,
                                                 machineBudget(machine, placement.marginBytes), pairs);
    row.speed = predictMachineSpeed(model, *estimate, machine, settings, efficiency(model.isMoe()));
    row.estimate = std::move(*estimate);
    return row;
}

} // namespace

QuantFitTable quantFitTable(const std::vector<QuantCandidate>& candidates, const ServerSettings& settings,
                            const Machine& machine, const PlacementOptions& placement,
                            const std::vector<KvPair>& pairs,
                            const std::function<SpeedEfficiency(bool moe)>& efficiency) {
    QuantFitTable table;
    for (const QuantCandidate& candidate : candidates) {
        table.rows.push_back(rowFor(candidate, settings, machine, placement, pairs, efficiency));
        // Candidates come best quality first: the first that fits is the recommendation.
        if (!table.recommended && table.rows.back().verdict == FitVerdict::Fits) {
            table.recommended = table.rows.size() - 1;
        }
    }
    return table;
}

} // namespace llamafit

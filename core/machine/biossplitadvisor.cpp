// Evaluates each offered carve-out and picks one; see biossplitadvisor.h.
#include "core/machine/biossplitadvisor.h"

#include "core/sizing/estimator.h"

#include <algorithm>

namespace llamafit {

namespace {

int rank(FitVerdict verdict) {
    switch (verdict) {
    case FitVerdict::Fits:
        return 0;
    case FitVerdict::Tight:
        return 1;
    case FitVerdict::Unknown:
        return 2;
    case FitVerdict::DoesNotFit:
        break;
    }
    return 3;
}

} // namespace

std::uint64_t freeSystemBytes(const SplitEvaluation& split) {
    return static_cast<std::uint64_t>(std::max<std::int64_t>(0, split.hostSide.worstHeadroomBytes));
}

std::uint64_t freeGpuBytes(const SplitEvaluation& split) {
    return static_cast<std::uint64_t>(std::max<std::int64_t>(0, split.gpuSide.headroomBytes));
}

Result<SplitAdvice> adviseBiosSplit(const ModelInfo& model, const ServerSettings& settings,
                                    const Machine& machine, const PlacementOptions& options,
                                    const std::vector<std::uint64_t>& offeredCarveOutBytes) {
    if (!machine.biosSplit || machine.gpus.empty()) {
        return makeError("advisor.not-an-apu",
                         "machine '" + machine.name + "' has no BIOS carve-out to choose");
    }
    const BiosSplit& split = *machine.biosSplit;
    std::vector<std::uint64_t> sizes =
        offeredCarveOutBytes.empty() ? split.offeredCarveOutBytes : offeredCarveOutBytes;
    sizes.push_back(split.carveOutBytes);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

    SplitAdvice advice;
    const std::size_t gpuPool = machine.gpus.front().poolIndex;
    for (std::uint64_t carveOut : sizes) {
        const std::optional<Machine> candidate = withCarveOut(machine, carveOut);
        if (!candidate) {
            continue; // leaves no system RAM at all
        }
        // The estimate itself does not depend on the split with one GPU, but the GPU's size is
        // part of the input (a tensor split follows free memory), so it is recomputed per split.
        Result<MemoryEstimate> estimate = estimateMemory(model, settings, sizingGpus(*candidate));
        if (!estimate) {
            return estimate.error();
        }
        const PoolUsage usage = placeOnMachine(*estimate, settings, model, *candidate, options);
        SplitEvaluation evaluation;
        evaluation.carveOutBytes = carveOut;
        evaluation.systemBytes = split.physicalBytes - carveOut;
        evaluation.current = carveOut == split.carveOutBytes;
        evaluation.gpuSide = usage.pools.at(gpuPool);
        evaluation.hostSide = usage.pools.at(candidate->hostPoolIndex);
        evaluation.verdict = rank(evaluation.gpuSide.verdict) >= rank(evaluation.hostSide.verdict)
                                 ? evaluation.gpuSide.verdict
                                 : evaluation.hostSide.verdict;
        if (evaluation.current) {
            advice.estimate = *estimate;
        }
        advice.splits.push_back(std::move(evaluation));
    }
    // Most system RAM left = the smallest carve-out on which both sides fit with margin.
    for (std::size_t i = 0; i < advice.splits.size(); ++i) {
        if (advice.splits[i].verdict == FitVerdict::Fits) {
            advice.recommended = i;
            break;
        }
    }
    if (advice.recommended && *advice.recommended > 0) {
        const SplitEvaluation& smaller = advice.splits[*advice.recommended - 1];
        advice.smallerSplit = smaller.gpuSide.verdict == FitVerdict::DoesNotFit
                                  ? SmallerSplitProblem::TooSmallForModel
                                  : SmallerSplitProblem::TooTightOnGpu;
    }
    return advice;
}

} // namespace llamafit

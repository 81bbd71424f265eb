// English wording of the core's advice; see advicetext.h.
#include "app/cli/advicetext.h"

#include "app/cli/commandline.h"
#include "core/machine/backendreport.h"
#include "core/sizing/kvpairs.h"

namespace llamafit {

namespace {

std::string overrunText(const BudgetOverrun& overrun) {
    return overrun.device + " needs " + mibWithUnit(overrun.neededBytes) + " of " +
           mibWithUnit(overrun.budgetBytes);
}

} // namespace

std::string biosSplitReason(const SplitAdvice& advice) {
    if (!advice.recommended) {
        return "No offered split fits with margin: lower the context, use a smaller quantization or move "
               "experts/layers to the CPU";
    }
    const SplitEvaluation& best = advice.splits[*advice.recommended];
    std::string text =
        formatGiBShort(best.carveOutBytes) + " VRAM / " + formatGiBShort(best.systemBytes) +
        " system leaves the most system RAM (" + formatGiBShort(freeSystemBytes(best)) +
        " free even when the prompt cache and checkpoints are full) while the GPU side keeps " +
        formatGiBShort(freeGpuBytes(best)) + " free";
    switch (advice.smallerSplit) {
    case SmallerSplitProblem::None:
        break;
    case SmallerSplitProblem::TooSmallForModel:
        text += "; " + formatGiBShort(advice.splits[*advice.recommended - 1].carveOutBytes) +
                " is too small for the model";
        break;
    case SmallerSplitProblem::TooTightOnGpu:
        text += "; " + formatGiBShort(advice.splits[*advice.recommended - 1].carveOutBytes) +
                " is too tight on the GPU side";
        break;
    }
    return text;
}

std::string fitFailureReason(const ContextFit& fit) {
    switch (fit.failure) {
    case FitFailure::None:
        break;
    case FitFailure::Refused:
        return fit.refusal.message;
    case FitFailure::OverBudgetAtSmallest:
        return "does not fit even at 256 tokens: " + overrunText(fit.overrun);
    case FitFailure::OverBudget:
        return "even " + kvPairName({fit.typeK, fit.typeV}) + " does not fit: " + overrunText(fit.overrun);
    case FitFailure::NoPairAccepted:
        return "no K/V pair is accepted for this model and settings";
    }
    return {};
}

} // namespace llamafit

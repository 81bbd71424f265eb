// English wording of the failure diagnosis and its fixes; see fixtext.h.
#include "app/cli/fixtext.h"

#include "app/cli/commandline.h"

namespace llamafit {

namespace {

std::string componentPhrase(const std::optional<Component>& component) {
    switch (component.value_or(Component::Overhead)) {
    case Component::Model:
        return "the model weights";
    case Component::Kv:
        return "the KV cache";
    case Component::Rs:
        return "the recurrent state";
    case Component::Output:
        return "the output buffer";
    case Component::Compute:
        return "the compute buffer";
    case Component::Overhead:
        break;
    }
    return "a buffer";
}

std::string why(const FailureFix& fix) {
    const std::string from = std::to_string(fix.from), to = std::to_string(fix.to);
    switch (fix.kind) {
    case FixKind::Context:
        return "Use a context of " + to + " tokens instead of " + from + " (shorter conversations)";
    case FixKind::CacheTypes:
        return "Store the KV cache as " + std::string(ggmlTypeName(fix.toK)) + "/" +
               std::string(ggmlTypeName(fix.toV)) + " (same context, slightly lower precision)";
    case FixKind::Slots:
        return "Serve " + to + " request" + (fix.to == 1 ? "" : "s") + " at a time instead of " + from;
    case FixKind::Ubatch:
        return "Process prompts in steps of " + to + " tokens instead of " + from +
               " (smaller compute buffer, slower prompt processing)";
    case FixKind::GpuLayers:
        break;
    }
    return "Keep " + std::to_string(fix.from - fix.to) + " more layers in system memory (slower generation)";
}

} // namespace

std::string diagnosisSummary(const FailureDiagnosis& diagnosis) {
    return componentPhrase(diagnosis.component) +
           (diagnosis.failedBytes ? " (" + mibWithUnit(*diagnosis.failedBytes) + ")" : std::string()) +
           " did not fit in " + diagnosis.device + ": the settings need " +
           mibWithUnit(diagnosis.predictedDeviceBytes) + " there, " + mibWithUnit(diagnosis.budgetBytes) +
           " are available" + (diagnosis.fixes.empty() ? "; no single change fits." : ".");
}

std::string fixChange(const FailureFix& fix) {
    const std::string from = std::to_string(fix.from), to = std::to_string(fix.to);
    switch (fix.kind) {
    case FixKind::Context:
        return "context " + from + " → " + to;
    case FixKind::CacheTypes: {
        const std::string oldK(ggmlTypeName(fix.fromK)), oldV(ggmlTypeName(fix.fromV));
        const std::string newK(ggmlTypeName(fix.toK)), newV(ggmlTypeName(fix.toV));
        if (oldK == newK) {
            return "V cache " + oldV + " → " + newV;
        }
        if (oldV == newV) {
            return "K cache " + oldK + " → " + newK;
        }
        return "K/V cache " + oldK + "/" + oldV + " → " + newK + "/" + newV;
    }
    case FixKind::Slots:
        return "slots " + from + " → " + to;
    case FixKind::Ubatch:
        return "ubatch " + from + " → " + to;
    case FixKind::GpuLayers:
        break;
    }
    return "GPU layers " + from + " → " + to;
}

std::string fixSentence(const FailureFix& fix, const FailureDiagnosis& diagnosis) {
    return why(fix) + ": " + diagnosis.device + " then needs " + mibWithUnit(fix.deviceBytes) + " of the " +
           mibWithUnit(diagnosis.budgetBytes) + " available.";
}

} // namespace llamafit

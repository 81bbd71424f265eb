// Translated wording of the failure diagnosis and its fixes; see fixtext.h.
#include "ui/launch/fixtext.h"

#include "ui/chartstyle.h"

#include <QCoreApplication>

namespace llamafit {

namespace {

QString componentPhrase(const std::optional<Component>& component) {
    switch (component.value_or(Component::Overhead)) {
    case Component::Model:
        return QCoreApplication::translate("FixText", "the model weights");
    case Component::Kv:
        return QCoreApplication::translate("FixText", "the KV cache");
    case Component::Rs:
        return QCoreApplication::translate("FixText", "the recurrent state");
    case Component::Output:
        return QCoreApplication::translate("FixText", "the output buffer");
    case Component::Compute:
        return QCoreApplication::translate("FixText", "the compute buffer");
    case Component::Overhead:
        break;
    }
    return QCoreApplication::translate("FixText", "a buffer");
}

QString why(const FailureFix& fix) {
    switch (fix.kind) {
    case FixKind::Context:
        return QCoreApplication::translate("FixText",
                                           "Use a context of %1 tokens instead of %2 (shorter conversations)")
            .arg(fix.to)
            .arg(fix.from);
    case FixKind::CacheTypes:
        return QCoreApplication::translate(
                   "FixText", "Store the KV cache as %1/%2 (same context, slightly lower precision)")
            .arg(ggmlTypeLabel(fix.toK), ggmlTypeLabel(fix.toV));
    case FixKind::Slots:
        return (fix.to == 1
                    ? QCoreApplication::translate("FixText", "Serve 1 request at a time instead of %1")
                          .arg(fix.from)
                    : QCoreApplication::translate("FixText", "Serve %1 requests at a time instead of %2")
                          .arg(fix.to)
                          .arg(fix.from));
    case FixKind::Ubatch:
        return QCoreApplication::translate("FixText", "Process prompts in steps of %1 tokens instead of %2 "
                                                      "(smaller compute buffer, slower prompt "
                                                      "processing)")
            .arg(fix.to)
            .arg(fix.from);
    case FixKind::GpuLayers:
        break;
    }
    return QCoreApplication::translate("FixText", "Keep %1 more layers in system memory (slower generation)")
        .arg(fix.from - fix.to);
}

} // namespace

QString diagnosisSummaryText(const FailureDiagnosis& diagnosis) {
    const QString what = diagnosis.failedBytes ? QCoreApplication::translate("FixText", "%1 (%2)")
                                                     .arg(componentPhrase(diagnosis.component),
                                                          formatMiBText(*diagnosis.failedBytes))
                                               : componentPhrase(diagnosis.component);
    const QString device = QString::fromStdString(diagnosis.device);
    const QString need = formatMiBText(diagnosis.predictedDeviceBytes);
    const QString have = formatMiBText(diagnosis.budgetBytes);
    return diagnosis.fixes.empty()
               ? QCoreApplication::translate(
                     "FixText",
                     "%1 did not fit in %2: the settings need %3 there, %4 are available; no single "
                     "change fits.")
                     .arg(what, device, need, have)
               : QCoreApplication::translate(
                     "FixText", "%1 did not fit in %2: the settings need %3 there, %4 are available.")
                     .arg(what, device, need, have);
}

QString fixChangeText(const FailureFix& fix) {
    switch (fix.kind) {
    case FixKind::Context:
        return QCoreApplication::translate("FixText", "context %1 → %2").arg(fix.from).arg(fix.to);
    case FixKind::CacheTypes:
        if (fix.fromK == fix.toK) {
            return QCoreApplication::translate("FixText", "V cache %1 → %2")
                .arg(ggmlTypeLabel(fix.fromV), ggmlTypeLabel(fix.toV));
        }
        if (fix.fromV == fix.toV) {
            return QCoreApplication::translate("FixText", "K cache %1 → %2")
                .arg(ggmlTypeLabel(fix.fromK), ggmlTypeLabel(fix.toK));
        }
        return QCoreApplication::translate("FixText", "K/V cache %1/%2 → %3/%4")
            .arg(ggmlTypeLabel(fix.fromK), ggmlTypeLabel(fix.fromV), ggmlTypeLabel(fix.toK),
                 ggmlTypeLabel(fix.toV));
    case FixKind::Slots:
        return QCoreApplication::translate("FixText", "slots %1 → %2").arg(fix.from).arg(fix.to);
    case FixKind::Ubatch:
        return QCoreApplication::translate("FixText", "ubatch %1 → %2").arg(fix.from).arg(fix.to);
    case FixKind::GpuLayers:
        break;
    }
    return QCoreApplication::translate("FixText", "GPU layers %1 → %2").arg(fix.from).arg(fix.to);
}

QString fixSentenceText(const FailureFix& fix, const FailureDiagnosis& diagnosis) {
    return QCoreApplication::translate("FixText", "%1: %2 then needs %3 of the %4 available.")
        .arg(why(fix), QString::fromStdString(diagnosis.device), formatMiBText(fix.deviceBytes),
             formatMiBText(diagnosis.budgetBytes));
}

} // namespace llamafit

// Shared chart look; see chartstyle.h.
#include "ui/chartstyle.h"

#include <QCoreApplication>
#include <QPalette>

#include <qcustomplot.h>

namespace llamafit {

// Tableau's teal and brown, beside the component colours: a draft context and adapters are not
// one of the main context's components.
QColor ownerColor(BufferOwner owner) {
    switch (owner) {
    case BufferOwner::MtpDraft:
        return QColor(0x76, 0xb7, 0xb2);
    case BufferOwner::DraftModel:
        return QColor(0x5b, 0x8f, 0xb9);
    case BufferOwner::Projector:
        return QColor(0xb0, 0x7a, 0xa1);
    case BufferOwner::LoraAdapter:
    case BufferOwner::Main:
        break;
    }
    return QColor(0x9c, 0x75, 0x5f);
}

QColor componentColor(Component component) {
    // Mid-saturation colours that keep their contrast on white and on near-black
    // backgrounds; weights (the largest part) get the calmest one.
    switch (component) {
    case Component::Model:
        return QColor(0x4e, 0x79, 0xa7); // blue
    case Component::Kv:
        return QColor(0xf2, 0x8e, 0x2b); // orange
    case Component::Rs:
        return QColor(0x59, 0xa1, 0x4f); // green
    case Component::Compute:
        return QColor(0xb0, 0x7a, 0xa1); // purple
    case Component::Output:
        return QColor(0xed, 0xc9, 0x48); // yellow
    case Component::Overhead:
        return QColor(0x9c, 0x9c, 0x9c); // grey
    }
    return QColor(Qt::gray);
}

QString ggmlTypeLabel(GgmlType type) {
    return QString::fromUtf8(ggmlTypeName(type));
}

QString componentLabel(Component component) {
    switch (component) {
    case Component::Model:
        return QCoreApplication::translate("ChartStyle", "Weights");
    case Component::Kv:
        return QCoreApplication::translate("ChartStyle", "KV cache");
    case Component::Rs:
        return QCoreApplication::translate("ChartStyle", "Recurrent state (RS)");
    case Component::Compute:
        return QCoreApplication::translate("ChartStyle", "Compute buffer");
    case Component::Output:
        return QCoreApplication::translate("ChartStyle", "Output buffer");
    case Component::Overhead:
        return QCoreApplication::translate("ChartStyle", "Overhead");
    }
    return {};
}

QColor seriesColor(std::size_t index) {
    static constexpr std::array<Component, 4> kSeries{Component::Kv, Component::Rs, Component::Compute,
                                                      Component::Output};
    return componentColor(kSeries[index % kSeries.size()]);
}

QColor verdictColor(FitVerdict verdict) {
    switch (verdict) {
    case FitVerdict::Fits:
        return QColor(0x2e, 0x9e, 0x4f);
    case FitVerdict::Tight:
        return QColor(0xe0, 0x9b, 0x1a);
    case FitVerdict::DoesNotFit:
        return QColor(0xd6, 0x3b, 0x3b);
    case FitVerdict::Unknown:
        break;
    }
    return QColor(0x88, 0x88, 0x88);
}

QString verdictLabel(FitVerdict verdict) {
    switch (verdict) {
    case FitVerdict::Fits:
        return QCoreApplication::translate("ChartStyle", "fits");
    case FitVerdict::Tight:
        return QCoreApplication::translate("ChartStyle", "tight");
    case FitVerdict::DoesNotFit:
        return QCoreApplication::translate("ChartStyle", "does not fit");
    case FitVerdict::Unknown:
        break;
    }
    return QCoreApplication::translate("ChartStyle", "size unknown");
}

// The core's standard pool names (core/machine/memorypools.cpp, machinefrominventory.cpp),
// marked for lupdate; translate() finds them by their English text.
const char* const kStandardPoolNames[] = {
    QT_TRANSLATE_NOOP("PoolNames", "System RAM"),
    QT_TRANSLATE_NOOP("PoolNames", "BIOS carve-out (dedicated VRAM)"),
    QT_TRANSLATE_NOOP("PoolNames", "GTT (system RAM the GPU can map)"),
    QT_TRANSLATE_NOOP("PoolNames", "Shared GPU memory (system RAM)"),
};

QString poolDisplayName(const std::string& coreName) {
    for (const char* name : kStandardPoolNames) {
        if (coreName == name) {
            return QCoreApplication::translate("PoolNames", name);
        }
    }
    return QString::fromStdString(coreName);
}

QString formatMiBText(std::uint64_t bytes) {
    return QCoreApplication::translate("ChartStyle", "%1 MiB").arg(toMiB(bytes), 0, 'f', 2);
}

QString formatGiBText(std::uint64_t bytes) {
    return QCoreApplication::translate("ChartStyle", "%1 GiB").arg(toGiB(bytes), 0, 'f', 1);
}

void applyPalette(QCustomPlot* plot, const QPalette& palette) {
    const QColor background = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(40);
    plot->setBackground(background);
    for (QCPAxis* axis : plot->axisRect()->axes()) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
    if (plot->legend != nullptr) {
        plot->legend->setBrush(background);
        plot->legend->setTextColor(text);
        plot->legend->setBorderPen(QPen(grid));
    }
}

} // namespace llamafit

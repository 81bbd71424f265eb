#pragma once
// The look every chart shares: one colour and one name per memory component, in the fixed
// stacking order of the memory chart (weights, KV, RS, compute, output, overhead), the
// fit-verdict colours, MiB/GiB text, and a QCustomPlot styled from the widget's palette so
// charts read in light and dark themes. Used by the memory, sweep and live charts.
// Thread: GUI thread (QPalette, QCustomPlot).

#include "core/gguf/ggmltype.h"
#include "core/machine/poolusage.h"
#include "core/sizing/memoryestimate.h"

#include "core/common/units.h"

#include <QColor>
#include <QString>

#include <array>
#include <cstdint>
#include <string>

class QCustomPlot;
class QPalette;

namespace llamafit {

// Bottom to top in every stacked bar.
inline constexpr std::array<Component, 6> kChartComponentOrder{Component::Model,  Component::Kv,
                                                               Component::Rs,     Component::Compute,
                                                               Component::Output, Component::Overhead};

QColor componentColor(Component component);
// The bars of what is not the main context (a draft context, a projector, adapters).
QColor ownerColor(BufferOwner owner);
QString componentLabel(Component component); // translated: "Weights", "KV cache", ...
// A cache or weight type as llama.cpp names it ("q8_0"): never translated.
QString ggmlTypeLabel(GgmlType type);
// The n-th of several like series (GPUs, slots) drawn beside a total in the weights colour
// and a grey reference: the other component colours, in turn.
QColor seriesColor(std::size_t index);
QColor verdictColor(FitVerdict verdict);
QString verdictLabel(FitVerdict verdict); // translated: "fits", "tight", "does not fit", "size unknown"

// A pool's name for people, translated when it is one of the core's standard names ("System
// RAM", "BIOS carve-out (dedicated VRAM)", the GTT / shared-memory window); others (a GPU's
// "VRAM (RTX 4060)") as the core gives them.
QString poolDisplayName(const std::string& coreName);

// "1234.56 MiB" (two decimals, as llama.cpp prints) and "12.3 GiB" for axes and summaries.
QString formatMiBText(std::uint64_t bytes);
QString formatGiBText(std::uint64_t bytes);

// Background, axes, grid, tick labels and legend in the palette's colours.
void applyPalette(QCustomPlot* plot, const QPalette& palette);

} // namespace llamafit

// Tokens per second in the live view; see throughputchart.h.
#include "ui/live/throughputchart.h"

#include "ui/chartstyle.h"

#include <qcustomplot.h>

namespace llamafit {

ThroughputChart::ThroughputChart(QWidget* parent) : LiveTimeChart(parent) {
    setObjectName(QStringLiteral("throughputChart"));
    setToolTip(tr("Tokens per second: all slots together and each slot (-np / --parallel), measured from "
                  "/slots and /metrics (--metrics) between two samples"));
    plot()->yAxis->setLabel(tr("tokens/s"));
    m_total = addSeries(tr("decode, all slots"), componentColor(Component::Model));
    m_prompt = addSeries(tr("prompt (finished requests)"), componentColor(Component::Overhead), true);
}

void ThroughputChart::addTotal(double seconds, const TotalThroughput& total) {
    addPoint(m_total, seconds, total.decodedTokensPerSecond);
    if (total.finishedPromptTokensPerSecond) {
        addPoint(m_prompt, seconds, *total.finishedPromptTokensPerSecond);
    }
}

void ThroughputChart::addSlots(double seconds, const std::vector<SlotThroughput>& rates) {
    for (const SlotThroughput& slot : rates) {
        QCPGraph*& graph = m_slots[slot.id];
        if (graph == nullptr) {
            graph = addSeries(tr("slot %1").arg(slot.id), seriesColor(m_slots.size() - 1));
        }
        addPoint(graph, seconds, slot.tokensPerSecond);
    }
}

void ThroughputChart::reset() {
    for (const auto& [id, graph] : m_slots) {
        removeSeries(graph);
    }
    m_slots.clear();
    clearPoints();
}

int ThroughputChart::slotPointCount(std::int32_t slotId) const {
    const auto found = m_slots.find(slotId);
    return found == m_slots.end() ? 0 : pointCount(found->second);
}

double ThroughputChart::peakTotalTokensPerSecond() const {
    bool found = false;
    const QCPRange range = m_total->data()->valueRange(found);
    return found ? range.upper : 0;
}

} // namespace llamafit

// A plot whose legend wraps to its width; see legendplot.h.

#include "ui/legendplot.h"

namespace llamafit {

LegendPlot::LegendPlot(int mostColumns, QWidget* parent)
    : QCustomPlot(parent), m_mostColumns(std::max(1, mostColumns)) {
    legend->setVisible(true);
    auto* legendRow = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, legendRow);
    legendRow->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
    legend->setWrap(m_mostColumns);
    // The wrap applies to items placed after it: rearrange the ones there (fitLegend).
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);
}

QSize LegendPlot::minimumSizeHint() const {
    return {kMinimumWidth, QCustomPlot::minimumSizeHint().height()};
}

void LegendPlot::resizeEvent(QResizeEvent* event) {
    fitLegend();
    QCustomPlot::resizeEvent(event);
}

void LegendPlot::fitLegend() {
    for (int columns = m_mostColumns; columns >= 1; --columns) {
        if (legend->wrap() != columns) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLegend::foColumnsFirst, true);
        }
        if (columns == 1 || legend->minimumOuterSizeHint().width() <= width()) {
            break;
        }
    }
    replot(QCustomPlot::rpQueuedReplot);
}

} // namespace llamafit

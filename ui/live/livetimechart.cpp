// Base of the live time charts; see livetimechart.h.
#include "ui/live/livetimechart.h"

#include "ui/chartstyle.h"

#include "ui/legendplot.h"
#include <QEvent>

#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

namespace llamafit {

namespace {

constexpr double kMinimumSpan = 30; // seconds shown at least, while the window allows

} // namespace

LiveTimeChart::LiveTimeChart(QWidget* parent) : QWidget(parent) {
    // The legend in a row under the plot (inside, it covered the lines), up to two entries a row.
    m_plot = new LegendPlot(2, this);
    m_plot->setMinimumHeight(160);
    m_plot->xAxis->setLabel(tr("seconds since ready"));
    m_plot->xAxis->setRange(0, std::min(static_cast<double>(m_window.count()), kMinimumSpan));
    m_plot->yAxis->setRange(0, 1);
    applyPalette(m_plot, palette());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
}

void LiveTimeChart::setWindow(std::chrono::seconds window) {
    m_window = std::max(window, std::chrono::seconds(1));
    for (QCPGraph* graph : m_series) {
        trim(graph);
    }
}

QCPGraph* LiveTimeChart::addSeries(const QString& name, const QColor& color, bool dashed) {
    QCPGraph* graph = m_plot->addGraph();
    graph->setName(name);
    graph->setPen(QPen(color, 2, dashed ? Qt::DashLine : Qt::SolidLine));
    graph->setAdaptiveSampling(true);
    m_series.push_back(graph);
    m_plot->fitLegend();
    return graph;
}

void LiveTimeChart::removeSeries(QCPGraph* graph) {
    std::erase(m_series, graph);
    std::erase(m_contextSeries, graph);
    m_plot->removeGraph(graph);
    m_plot->fitLegend();
}

void LiveTimeChart::addPoint(QCPGraph* graph, double seconds, double value) {
    graph->addData(seconds, value);
    m_newestSeconds = std::max(m_newestSeconds, seconds);
    trim(graph);
}

void LiveTimeChart::addReferenceLine(const QString& name, double value, const QColor& color,
                                     Qt::PenStyle style) {
    QCPGraph* graph = m_plot->addGraph();
    graph->setName(name);
    graph->setPen(QPen(color, 1.5, style));
    m_references.push_back(ReferenceLine{graph, value, name});
    m_plot->fitLegend();
}

void LiveTimeChart::setScalesAxis(QCPGraph* graph, bool scales) {
    std::erase(m_contextSeries, graph);
    if (!scales) {
        m_contextSeries.push_back(graph);
    }
}

void LiveTimeChart::trim(QCPGraph* graph) const {
    // QCPDataContainer::removeBefore only moves its start: dropping the oldest point is cheap.
    graph->data()->removeBefore(m_newestSeconds - static_cast<double>(m_window.count()));
}

void LiveTimeChart::refresh() {
    // The x axis grows with the run until it spans the window, then slides: a fresh run's
    // first seconds are not squeezed into the left edge of an empty 5-minute axis.
    const double span =
        std::min(static_cast<double>(m_window.count()), std::max(m_newestSeconds, kMinimumSpan));
    const double right = std::max(m_newestSeconds, span);
    const double left = right - span;
    double dataTop = 0;
    for (QCPGraph* graph : m_series) {
        trim(graph);
        bool found = false;
        const QCPRange range = graph->data()->valueRange(found);
        if (found &&
            std::find(m_contextSeries.begin(), m_contextSeries.end(), graph) == m_contextSeries.end()) {
            dataTop = std::max(dataTop, range.upper);
        }
    }
    // A reference line far above the data (a 32 GiB RAM limit over a 1 GiB server) would
    // squash the data into the bottom pixels: it stays in the legend, marked off scale.
    double top = dataTop;
    for (const ReferenceLine& line : m_references) {
        line.graph->setData({left, right}, {line.value, line.value}, true);
        const bool onScale = dataTop <= 0 || line.value <= 2.5 * dataTop;
        line.graph->setName(onScale ? line.name
                                    : tr("%1 (off scale: %2)").arg(line.name).arg(line.value, 0, 'f', 0));
        if (onScale) {
            top = std::max(top, line.value);
        }
    }
    m_plot->xAxis->setRange(left, right);
    m_plot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    ++m_replotCount;
}

void LiveTimeChart::clearPoints() {
    for (QCPGraph* graph : m_series) {
        graph->data()->clear();
    }
    m_newestSeconds = 0;
}

void LiveTimeChart::clearReferenceLines() {
    for (const ReferenceLine& line : m_references) {
        m_plot->removeGraph(line.graph);
    }
    m_references.clear();
    m_plot->fitLegend();
}

int LiveTimeChart::pointCount(const QCPGraph* graph) {
    return graph == nullptr ? 0 : graph->data()->size();
}

double LiveTimeChart::latestValue(const QCPGraph* graph) {
    if (graph == nullptr || graph->data()->isEmpty()) {
        return 0;
    }
    return (graph->data()->constEnd() - 1)->value;
}

void LiveTimeChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        applyPalette(m_plot, palette());
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    QWidget::changeEvent(event);
}

} // namespace llamafit

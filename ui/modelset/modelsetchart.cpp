// A model set stacked per pool; see modelsetchart.h.
#include "ui/modelset/modelsetchart.h"

#include "ui/chartstyle.h"

#include <QEvent>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace llamafit {

namespace {

constexpr double kBarWidth = 0.55;

double gib(std::uint64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(kGiB);
}

QVector<double> barValues(const QCPBars* bars) {
    QVector<double> values;
    if (bars != nullptr) {
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
            values.push_back(it->value);
        }
    }
    return values;
}

} // namespace

ModelSetChart::ModelSetChart(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    m_plot->setObjectName(QStringLiteral("setChartPlot"));
    m_plot->setMinimumSize(360, 260);
    m_plot->yAxis->setLabel(tr("GiB"));
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->legend->setVisible(true);
    // The legend in a row under the plot, so it never covers a bar.
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    restyle();
}

void ModelSetChart::showPlan(const ModelSetPlan& plan) {
    m_plot->clearPlottables();
    m_members.clear();
    m_reserved = nullptr;
    m_capacity = nullptr;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const std::vector<PoolLoad>& pools = plan.together.pools;
    if (plan.members.empty()) {
        m_plot->xAxis->setTicker(ticker);
        m_plot->replot();
        return;
    }
    m_reserved = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_reserved->setName(tr("reserved (OS, desktop)"));
    m_reserved->setWidth(kBarWidth);
    m_reserved->setBrush(palette().color(QPalette::Mid));
    m_reserved->setPen(Qt::NoPen);
    QCPBars* below = m_reserved;
    for (std::size_t i = 0; i < plan.members.size(); ++i) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(QString::fromStdString(plan.members[i].name));
        bars->setWidth(kBarWidth);
        bars->setBrush(seriesColor(i));
        bars->setPen(Qt::NoPen);
        bars->moveAbove(below); // stacked in set order, as the table lists them
        below = bars;
        m_members.push_back(bars);
    }
    m_capacity = m_plot->addGraph();
    m_capacity->setName(tr("pool size"));
    m_capacity->setLineStyle(QCPGraph::lsNone);
    // A bar-wide dash at the pool's size (ssCustom paths are drawn at size / 6 scale: 6 = 1:1).
    QPainterPath dash;
    dash.moveTo(-16, 0);
    dash.lineTo(16, 0);
    m_capacity->setScatterStyle(
        QCPScatterStyle(dash, QPen(palette().color(QPalette::Text), 2), Qt::NoBrush, 6));
    double top = 0;
    for (std::size_t p = 0; p < pools.size(); ++p) {
        const PoolLoad& load = pools[p];
        const double x = static_cast<double>(p);
        ticker->addTick(x, poolDisplayName(load.poolName));
        m_reserved->addData(x, gib(load.atLoadBytes - load.llamaAtLoadBytes));
        for (std::size_t i = 0; i < plan.members.size(); ++i) {
            m_members[i]->addData(x, gib(memberShare(plan.members[i], p).atLoadBytes));
        }
        if (load.capacityKnown) {
            m_capacity->addData(x, gib(load.capacityBytes));
        }
        top = std::max({top, gib(load.atLoadBytes), load.capacityKnown ? gib(load.capacityBytes) : 0.0});
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.6, static_cast<double>(pools.size()) - 0.4);
    m_plot->yAxis->setRange(0, std::max(1.0, top * 1.08));
    m_plot->replot();
}

QVector<double> ModelSetChart::reservedBars() const {
    return barValues(m_reserved);
}

QVector<double> ModelSetChart::memberBars(std::size_t member) const {
    return member < m_members.size() ? barValues(m_members[member]) : QVector<double>{};
}

QVector<double> ModelSetChart::capacities() const {
    QVector<double> values;
    if (m_capacity != nullptr) {
        for (auto it = m_capacity->data()->constBegin(); it != m_capacity->data()->constEnd(); ++it) {
            values.push_back(it->value);
        }
    }
    return values;
}

QStringList ModelSetChart::poolLabels() const {
    const auto ticker = m_plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    return ticker ? QStringList(ticker->ticks().values()) : QStringList{};
}

void ModelSetChart::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        restyle();
    }
}

void ModelSetChart::restyle() {
    applyPalette(m_plot, palette());
    m_plot->replot();
}

} // namespace llamafit

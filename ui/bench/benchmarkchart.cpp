// Measured llama-bench rates against the speed model; see benchmarkchart.h.
#include "ui/bench/benchmarkchart.h"

#include "core/server/benchprediction.h"
#include "ui/chartstyle.h"

#include <QEvent>
#include <QHBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <memory>

namespace llamafit {

namespace {

constexpr double kBarWidth = 0.5;

QVector<double> valuesOf(const QCPGraph* graph) {
    QVector<double> values;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
        values.push_back(it->value);
    }
    return values;
}

// "0", "4K", "32K": llama-bench's depths are usually powers of two.
QString depthTick(std::uint32_t depth) {
    return depth >= 1024 && depth % 1024 == 0 ? QStringLiteral("%1K").arg(depth / 1024)
                                              : QString::number(depth);
}

} // namespace

BenchmarkChart::BenchmarkChart(QWidget* parent) : QWidget(parent) {
    m_promptPlot = makePlot(QStringLiteral("benchPromptPlot"), tr("Prompt processing (pp)"), m_prompt);
    m_generationPlot = makePlot(QStringLiteral("benchGenerationPlot"), tr("Generation (tg)"), m_generation);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_promptPlot);
    layout->addWidget(m_generationPlot);
    restyle();
}

QCustomPlot* BenchmarkChart::makePlot(const QString& objectName, const QString& title, Series& series) {
    auto* plot = new QCustomPlot(this);
    plot->setObjectName(objectName);
    plot->setMinimumSize(260, 220);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title));
    plot->xAxis->setLabel(tr("Depth (tokens in the KV cache before the test)"));
    plot->yAxis->setLabel(tr("tokens/s"));
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot->legend->setVisible(true);
    // The legend in a row under the plot: inside, it covered the bound line wherever it sat.
    auto* legendRow = new QCPLayoutGrid;
    plot->plotLayout()->addElement(2, 0, legendRow);
    legendRow->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);

    series.measured = new QCPBars(plot->xAxis, plot->yAxis);
    series.measured->setName(tr("measured"));
    series.measured->setWidth(kBarWidth);
    series.spread = new QCPErrorBars(plot->xAxis, plot->yAxis);
    series.spread->removeFromLegend();
    series.spread->setDataPlottable(series.measured);
    series.expected = plot->addGraph();
    series.expected->setName(tr("expected"));
    series.expected->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
    series.bound = plot->addGraph();
    series.bound->setName(tr("bound"));
    return plot;
}

void BenchmarkChart::showRecord(const BenchRecord& record) {
    fill(Kind::Prompt, record);
    fill(Kind::Generation, record);
}

void BenchmarkChart::fill(Kind kind, const BenchRecord& record) {
    Series& series = kind == Kind::Prompt ? m_prompt : m_generation;
    QCustomPlot* target = plot(kind);
    QVector<double> positions;
    QVector<double> measured;
    QVector<double> spread;
    QVector<double> expected;
    QVector<double> bound;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (std::size_t i = 0; i < record.rows.size(); ++i) {
        const BenchRow& row = record.rows[i];
        if (kind == Kind::Prompt ? !row.isPrompt() : !row.isGeneration()) {
            continue;
        }
        const BenchRowComparison comparison = compareBenchRow(
            row, i < record.predictions.size() ? record.predictions[i] : BenchRowPrediction{});
        const double x = static_cast<double>(positions.size());
        positions.push_back(x);
        measured.push_back(comparison.measuredTps);
        spread.push_back(comparison.stddevTps);
        expected.push_back(comparison.expectedTps);
        bound.push_back(comparison.boundTps);
        ticker->addTick(x, depthTick(row.depth));
    }
    series.measured->setData(positions, measured, true);
    series.spread->setData(spread);
    // A figure the model does not know (no bandwidth, no FLOPS) is left out, not drawn as 0.
    const auto known = [&positions](const QVector<double>& values, QCPGraph* graph) {
        QVector<double> xs;
        QVector<double> ys;
        for (int i = 0; i < values.size(); ++i) {
            if (values[i] > 0) {
                xs.push_back(positions[i]);
                ys.push_back(values[i]);
            }
        }
        graph->setData(xs, ys, true);
    };
    known(expected, series.expected);
    known(bound, series.bound);
    target->xAxis->setTicker(ticker);
    target->xAxis->setRange(-0.6, std::max<double>(0.6, static_cast<double>(positions.size()) - 0.4));
    double top = 0;
    for (const QVector<double>* values : {&measured, &expected, &bound}) {
        for (int i = 0; i < values->size(); ++i) {
            top = std::max(top, (*values)[i] + (values == &measured ? spread[i] : 0));
        }
    }
    target->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
    target->replot(QCustomPlot::rpQueuedReplot);
}

QVector<double> BenchmarkChart::measured(Kind kind) const {
    const Series& series = kind == Kind::Prompt ? m_prompt : m_generation;
    QVector<double> values;
    for (auto it = series.measured->data()->constBegin(); it != series.measured->data()->constEnd(); ++it) {
        values.push_back(it->value);
    }
    return values;
}

QVector<double> BenchmarkChart::expected(Kind kind) const {
    return valuesOf(kind == Kind::Prompt ? m_prompt.expected : m_generation.expected);
}

QVector<double> BenchmarkChart::bound(Kind kind) const {
    return valuesOf(kind == Kind::Prompt ? m_prompt.bound : m_generation.bound);
}

QStringList BenchmarkChart::depthLabels(Kind kind) const {
    const auto ticker = plot(kind)->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QStringList labels;
    if (ticker) {
        for (const QString& label : ticker->ticks()) {
            labels.push_back(label);
        }
    }
    return labels;
}

void BenchmarkChart::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        restyle();
    }
}

void BenchmarkChart::restyle() {
    const QColor measuredColor = componentColor(Component::Model);
    const QColor modelColor = componentColor(Component::Kv);
    for (auto [target, series] :
         {std::pair{m_promptPlot, &m_prompt}, std::pair{m_generationPlot, &m_generation}}) {
        applyPalette(target, palette());
        series->measured->setPen(QPen(measuredColor.darker(130)));
        QColor fill = measuredColor;
        fill.setAlpha(170);
        series->measured->setBrush(fill);
        series->spread->setPen(QPen(palette().color(QPalette::Text)));
        series->expected->setPen(QPen(modelColor, 2));
        series->bound->setPen(QPen(modelColor, 1.5, Qt::DashLine));
        target->replot(QCustomPlot::rpQueuedReplot);
    }
}

} // namespace llamafit

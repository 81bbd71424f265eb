// The context sweep chart; see sweepchart.h.
#include "ui/charts/sweepchart.h"

#include "core/common/units.h"
#include "ui/chartstyle.h"
#include "ui/sizingsession.h"

#include <QEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QStringList>
#include <QThread>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace llamafit {

namespace {

QString pairName(const KvPair& pair) {
    return QStringLiteral("%1/%2").arg(ggmlTypeLabel(pair.first), ggmlTypeLabel(pair.second));
}

// "98 304": digits grouped by threes with a space, as the seeds' tables print contexts.
QString groupedTokens(std::uint32_t tokens) {
    QString digits = QString::number(tokens);
    for (int at = digits.size() - 3; at > 0; at -= 3) {
        digits.insert(at, u' ');
    }
    return digits;
}

QString tokensTick(double tokens) {
    if (tokens >= 1048576) {
        return QStringLiteral("%1M").arg(tokens / 1048576);
    }
    return tokens >= 1024 ? QStringLiteral("%1K").arg(tokens / 1024) : QString::number(tokens);
}

// Distinct series colours from the shared chart palette (chartstyle.h), in a fixed order.
QColor pairColor(std::size_t index) {
    return componentColor(kChartComponentOrder[index % kChartComponentOrder.size()]);
}

} // namespace

SweepChart::SweepChart(SizingSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_plot(new QCustomPlot(this)), m_noteLabel(new QLabel(this)) {
    m_plot->setObjectName(QStringLiteral("sweepChart"));
    m_plot->setToolTip(tr("Total memory against context per K/V cache type pair (-ctk / -ctv). Click a "
                          "point or a legend entry to set -c / --ctx-size and the cache types."));
    m_noteLabel->setObjectName(QStringLiteral("sweepNoteLabel"));
    m_noteLabel->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_noteLabel);

    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setLabel(tr("Context (tokens, -c)"));
    m_plot->yAxis->setLabel(tr("GiB"));
    // Top left: memory grows with the context, so the curves leave that corner empty.
    m_plot->legend->setVisible(true);
    // The legend in a row under the plot: inside, it covered the lines wherever it sat.
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->addElement(0, 0, m_plot->legend);
    m_plot->legend->setWrap(3);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_budgetGraph = m_plot->addGraph();
    m_budgetGraph->setSelectable(QCP::stNone);
    m_currentLine = new QCPItemStraightLine(m_plot);
    m_currentLine->setSelectable(false);

    m_recomputeTimer.setSingleShot(true);
    m_recomputeTimer.setInterval(0);
    connect(&m_recomputeTimer, &QTimer::timeout, this, &SweepChart::recompute);
    // Every session change ends in estimateChanged; a burst of them (a slider drag delivering
    // several values in one turn) costs one sweep.
    connect(m_session, &SizingSession::estimateChanged, &m_recomputeTimer, qOverload<>(&QTimer::start));
    connect(m_session, &SizingSession::modelChanged, this, [this] { ++m_modelGeneration; });
    connect(m_plot, &QCustomPlot::mousePress, this, &SweepChart::onMousePress);
    connect(m_plot, &QCustomPlot::legendClick, this, &SweepChart::onLegendClick);
    restyle();
    m_recomputeTimer.start();
}

SweepChart::~SweepChart() {
    if (m_sweepThread != nullptr) {
        disconnect(m_sweepThread, nullptr, this, nullptr);
        m_sweepThread->wait();
        delete m_sweepThread;
    }
}

SweepChart::SweepInputs SweepChart::currentInputs() const {
    SweepInputs inputs{m_session->settings(), m_session->budget(), m_session->gpus(), m_modelGeneration};
    inputs.settings.contextTokens.reset();
    return inputs;
}

void SweepChart::recompute() {
    if (m_sweepThread != nullptr) {
        return; // the running sweep's end compares the settings again
    }
    SweepInputs inputs = currentInputs();
    if (m_inputs == inputs) {
        placeCurrentLine();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        emit recomputed();
        return;
    }
    startSweep(std::move(inputs));
}

void SweepChart::startSweep(SweepInputs inputs) {
    ++m_sweepCount;
    const ServerSettings& settings = m_session->settings();
    const KvPair current{settings.cacheTypeK, settings.cacheTypeV};
    auto result = std::make_shared<SweepData>();
    m_sweepThread =
        QThread::create([result, model = m_session->sizingModel(), settings, gpus = m_session->gpus(),
                         budget = m_session->budget(), pairs = defaultKvPairsWith(current)] {
            *result = computeSweep(model, settings, gpus, budget, pairs);
        });
    connect(m_sweepThread, &QThread::finished, this, [this, result, inputs = std::move(inputs)]() mutable {
        m_sweepThread->deleteLater();
        m_sweepThread = nullptr;
        SweepInputs latest = currentInputs();
        if (!(latest == inputs)) {
            startSweep(std::move(latest));
            return;
        }
        m_inputs = std::move(inputs);
        m_data = std::move(*result);
        rebuildGraphs();
        setGraphData();
        updateNote();
        restyle();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        emit recomputed();
    });
    m_sweepThread->start();
}

void SweepChart::rebuildGraphs() {
    std::vector<KvPair> drawn;
    for (const SweepSeries& series : m_data.series) {
        if (!series.refused) {
            drawn.push_back(series.pair);
        }
    }
    const bool same =
        drawn.size() == m_graphs.size() &&
        std::equal(drawn.begin(), drawn.end(), m_graphs.begin(),
                   [](const KvPair& pair, const PairGraphs& graphs) { return pair == graphs.pair; });
    if (same) {
        return;
    }
    for (const PairGraphs& graphs : m_graphs) {
        m_plot->removeGraph(graphs.line);
        m_plot->removeGraph(graphs.marker);
    }
    m_graphs.clear();
    for (const KvPair& pair : drawn) {
        PairGraphs graphs{pair, m_plot->addGraph(), m_plot->addGraph()};
        graphs.marker->setLineStyle(QCPGraph::lsNone);
        graphs.marker->removeFromLegend();
        m_graphs.push_back(graphs);
    }
}

void SweepChart::setGraphData() {
    double low = std::numeric_limits<double>::max();
    double high = 0;
    for (const SweepSeries& series : m_data.series) {
        const PairGraphs* graphs = find(series.pair);
        if (graphs == nullptr) {
            continue;
        }
        QVector<double> keys, values;
        for (std::size_t i = 0; i < series.contexts.size(); ++i) {
            keys << series.contexts[i];
            values << toGiB(series.deviceBytes[i]);
        }
        if (!values.isEmpty()) {
            low = std::min(low, *std::min_element(values.begin(), values.end()));
            high = std::max(high, *std::max_element(values.begin(), values.end()));
        }
        graphs->line->setData(keys, values, true);
        graphs->line->setName(
            series.fit.fits ? tr("%1: %2").arg(pairName(series.pair), groupedTokens(series.fit.contextTokens))
                            : tr("%1: does not fit").arg(pairName(series.pair)));
        graphs->marker->data()->clear();
        if (series.fit.fits) {
            graphs->marker->addData(series.fit.contextTokens, toGiB(series.fitDeviceBytes));
        }
    }
    const double first = 256;
    const double last =
        std::max(first * 2,
                 static_cast<double>(sweepContexts(m_session->sizingModel().model().trainingContext).back()));
    m_budgetGraph->data()->clear();
    if (m_data.budgetBytes > 0) {
        const double budget = toGiB(m_data.budgetBytes);
        m_budgetGraph->addData(first / 2, budget);
        m_budgetGraph->addData(last * 2, budget);
        m_budgetGraph->setName(
            tr("Limit of %1: %2")
                .arg(QString::fromStdString(m_data.deviceName), formatGiBText(m_data.budgetBytes)));
        m_budgetGraph->addToLegend();
        low = std::min(low, budget);
        high = std::max(high, budget);
    } else {
        m_budgetGraph->removeFromLegend();
    }
    if (high <= 0) {
        low = 0;
        high = 1;
    }
    m_plot->yAxis->setRange(std::max(0.0, low * 0.9), high * 1.08);
    m_plot->xAxis->setRange(first / 1.2, last * 1.2);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (double tick = first; tick <= last * 1.01; tick *= 4) {
        ticker->addTick(tick, tokensTick(tick));
    }
    m_plot->xAxis->setTicker(ticker);
    placeCurrentLine();
}

double SweepChart::currentContextLine() const {
    return m_currentLine->visible() ? m_currentLine->point1->coords().x() : 0.0;
}

void SweepChart::placeCurrentLine() {
    const std::uint32_t context = m_session->settings().contextTokens.value_or(0);
    m_currentLine->setVisible(context > 0);
    m_currentLine->point1->setCoords(context, 0);
    m_currentLine->point2->setCoords(context, 1);
}

void SweepChart::updateNote() {
    QStringList lines;
    if (m_data.onGpu && m_session->gpus().size() > 1) {
        // Layers split over several devices (RPC hosts, -ts): the curve is the one with the least room.
        lines << tr("Memory of %1 (of the devices the layers are split over, the one with the least room "
                    "left); the markers are the largest context that fits every device.")
                     .arg(QString::fromStdString(m_data.deviceName));
    } else {
        lines << (m_data.onGpu ? tr("Memory of %1 (the GPU the layers go to); the markers are the largest "
                                    "context that fits its budget.")
                                     .arg(QString::fromStdString(m_data.deviceName))
                               : tr("Host memory (no layers on a GPU); the markers are the largest context "
                                    "that fits its budget."));
    }
    for (const SweepSeries& series : m_data.series) {
        if (series.refused) {
            lines << tr("%1 left out: llama-server refuses it for this model (%2)")
                         .arg(pairName(series.pair), QString::fromStdString(series.refusal.message));
        }
    }
    m_noteLabel->setText(lines.join(u'\n'));
}

void SweepChart::restyle() {
    applyPalette(m_plot, palette());
    const KvPair current{m_session->settings().cacheTypeK, m_session->settings().cacheTypeV};
    for (std::size_t i = 0; i < m_graphs.size(); ++i) {
        const QColor color = pairColor(i);
        m_graphs[i].line->setPen(QPen(color, m_graphs[i].pair == current ? 3.0 : 1.5));
        m_graphs[i].marker->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 10));
    }
    const QColor text = palette().color(QPalette::Text);
    m_budgetGraph->setPen(QPen(verdictColor(FitVerdict::DoesNotFit), 2, Qt::DashLine));
    QColor faint = text;
    faint.setAlpha(140);
    m_currentLine->setPen(QPen(faint, 1, Qt::DashLine));
}

void SweepChart::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        restyle();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

// The nearest drawn point (markers first on a tie) within the plot's selection tolerance.
void SweepChart::onMousePress(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton ||
        !m_plot->axisRect()->rect().contains(event->position().toPoint())) {
        return;
    }
    const KvPair* bestPair = nullptr;
    double bestKey = 0;
    double bestDistance = m_plot->selectionTolerance();
    for (const PairGraphs& graphs : m_graphs) {
        for (const QCPGraph* graph : {graphs.marker, graphs.line}) {
            for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
                const double dx = m_plot->xAxis->coordToPixel(it->key) - event->position().x();
                const double dy = m_plot->yAxis->coordToPixel(it->value) - event->position().y();
                const double distance = std::hypot(dx, dy);
                if (distance < bestDistance) {
                    bestDistance = distance;
                    bestPair = &graphs.pair;
                    bestKey = it->key;
                }
            }
        }
    }
    if (bestPair != nullptr) {
        applyPoint(*bestPair, static_cast<std::uint32_t>(std::lround(bestKey)));
    }
}

void SweepChart::onLegendClick(QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
    auto* plottableItem = qobject_cast<QCPPlottableLegendItem*>(item);
    if (plottableItem == nullptr) {
        return;
    }
    for (const SweepSeries& series : m_data.series) {
        const PairGraphs* graphs = find(series.pair);
        if (graphs != nullptr && graphs->line == plottableItem->plottable()) {
            const std::uint32_t current = m_session->settings().contextTokens.value_or(0);
            applyPoint(series.pair, series.fit.fits ? series.fit.contextTokens : current);
            return;
        }
    }
}

void SweepChart::applyPoint(const KvPair& pair, std::uint32_t contextTokens) {
    ServerSettings settings = m_session->settings();
    if (contextTokens > 0) {
        settings.contextTokens = contextTokens;
    }
    settings.cacheTypeK = pair.first;
    settings.cacheTypeV = pair.second;
    m_session->setSettings(settings);
}

const SweepChart::PairGraphs* SweepChart::find(const KvPair& pair) const {
    const auto it = std::find_if(m_graphs.begin(), m_graphs.end(),
                                 [&pair](const PairGraphs& graphs) { return graphs.pair == pair; });
    return it != m_graphs.end() ? &*it : nullptr;
}

std::vector<KvPair> SweepChart::kvPairs() const {
    std::vector<KvPair> pairs;
    for (const SweepSeries& series : m_data.series) {
        pairs.push_back(series.pair);
    }
    return pairs;
}

QVector<double> SweepChart::seriesContexts(GgmlType typeK, GgmlType typeV) const {
    QVector<double> keys;
    if (const PairGraphs* graphs = find({typeK, typeV})) {
        for (auto it = graphs->line->data()->constBegin(); it != graphs->line->data()->constEnd(); ++it) {
            keys << it->key;
        }
    }
    return keys;
}

QVector<double> SweepChart::seriesTotalsMiB(GgmlType typeK, GgmlType typeV) const {
    QVector<double> values;
    if (const PairGraphs* graphs = find({typeK, typeV})) {
        for (auto it = graphs->line->data()->constBegin(); it != graphs->line->data()->constEnd(); ++it) {
            values << it->value * 1024.0;
        }
    }
    return values;
}

QCPGraph* SweepChart::seriesGraph(GgmlType typeK, GgmlType typeV) const {
    const PairGraphs* graphs = find({typeK, typeV});
    return graphs != nullptr ? graphs->line : nullptr;
}

QCPGraph* SweepChart::markerGraph(GgmlType typeK, GgmlType typeV) const {
    const PairGraphs* graphs = find({typeK, typeV});
    return graphs != nullptr && !graphs->marker->data()->isEmpty() ? graphs->marker : nullptr;
}

QString SweepChart::deviceName() const {
    return QString::fromStdString(m_data.deviceName);
}

} // namespace llamafit

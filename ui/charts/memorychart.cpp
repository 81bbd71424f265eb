// The stacked per-pool memory chart; see memorychart.h.
#include "ui/charts/memorychart.h"

#include "core/sizing/llamabuild.h"

#include "core/common/units.h"
#include "core/machine/backendreport.h"
#include "ui/charts/hostcolumns.h"
#include "ui/chartstyle.h"
#include "ui/sizingsession.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QStackedLayout>
#include <QStringList>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace llamafit {

namespace {

// Up to three legend entries a row; fewer where the chart is narrow (LegendPlot).
constexpr int kMostLegendColumns = 3;
constexpr int kMinimumPlotHeight = 200;

constexpr double kBarWidth = 0.6;
constexpr double kHalfBar = kBarWidth / 2;

double gib(std::uint64_t bytes) {
    return toGiB(bytes);
}

// Stacked value of one key in a QCPBars, read back from its data (0 when absent).
double barValueGiB(const QCPBars* bars, double key) {
    const auto it = bars->data()->findBegin(key, false);
    return it != bars->data()->constEnd() && it->key == key ? it->value : 0.0;
}

QCPBars* makeBars(QCustomPlot* plot, const QString& name) {
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(name);
    bars->setWidth(kBarWidth);
    bars->setSelectable(QCP::stNone);
    return bars;
}

} // namespace

MemoryChart::MemoryChart(SizingSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_speed(session), m_plot(new LegendPlot(kMostLegendColumns, this)),
      m_verdictLabel(new QLabel(this)), m_messageLabel(new QLabel(this)), m_noteLabel(new QLabel(this)),
      m_breakdownLabel(new QLabel(this)), m_sizedForLabel(new QLabel(this)),
      m_withoutWeightsCheck(new QCheckBox(tr("Without weights"), this)) {
    m_plot->setObjectName(QStringLiteral("memoryChart"));
    m_plot->setToolTip(QString()); // tooltips come from hover over a segment
    m_plot->setMouseTracking(true);
    // The bars stay readable whatever text is below them: the plan splitter gives the sweep chart
    // less before the memory chart goes below this (a third of a 1366 x 768 window with its menu,
    // tabs and launch dock is about 200 px).
    m_plot->setMinimumHeight(kMinimumPlotHeight);
    m_verdictLabel->setObjectName(QStringLiteral("memoryVerdictLabel"));
    m_verdictLabel->setToolTip(tr("Whether llama-server's memory fits every pool of this machine, with the "
                                  "safety margin (--fit-target)"));
    m_messageLabel->setObjectName(QStringLiteral("memoryMessageLabel"));
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setAlignment(Qt::AlignCenter);
    m_verdictLabel->setWordWrap(true); // a long verdict must not set the window's minimum width
    m_noteLabel->setObjectName(QStringLiteral("memoryBackendNoteLabel"));
    m_noteLabel->setWordWrap(true);
    m_breakdownLabel->setObjectName(QStringLiteral("memoryBreakdownLabel"));
    m_breakdownLabel->setWordWrap(true);
    m_sizedForLabel->setObjectName(QStringLiteral("memorySizedForLabel"));

    m_breakdownLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_withoutWeightsCheck->setObjectName(QStringLiteral("withoutWeightsCheck"));
    m_withoutWeightsCheck->setToolTip(
        tr("Draw the bars without the weights and the reserved memory, at their own "
           "scale: the KV cache, recurrent state, compute and output buffers the "
           "settings change"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_verdictLabel);
    m_stack = new QStackedLayout;
    m_stack->addWidget(m_plot);
    m_stack->addWidget(m_messageLabel);
    layout->addLayout(m_stack, 1);
    auto* breakdownRow = new QHBoxLayout;
    breakdownRow->addWidget(m_breakdownLabel, 1);
    // The build sits under the check box, beside the breakdown's lines: a line of its own, or a
    // narrower verdict, would take the bars' height (MainWindowLayoutTest).
    auto* sideColumn = new QVBoxLayout;
    sideColumn->addWidget(m_withoutWeightsCheck);
    sideColumn->addWidget(m_sizedForLabel);
    sideColumn->addStretch(1);
    breakdownRow->addLayout(sideColumn);
    layout->addLayout(breakdownRow);
    layout->addWidget(m_noteLabel);

    // Bottom to top; the fixed component order is the chart's legend order too.
    m_reservationBars = makeBars(m_plot, tr("Reserved (OS, desktop)"));
    QCPBars* below = m_reservationBars;
    for (std::size_t i = 0; i < kChartComponentOrder.size(); ++i) {
        m_componentBars[i] = makeBars(m_plot, componentLabel(kChartComponentOrder[i]));
        m_componentBars[i]->moveAbove(below);
        below = m_componentBars[i];
    }
    for (std::size_t o = 0; o < kChartOwnerOrder.size(); ++o) {
        m_ownerBars[o] = makeBars(m_plot, bufferOwnerLabel(kChartOwnerOrder[o]));
        m_ownerBars[o]->moveAbove(below);
        below = m_ownerBars[o];
        m_ownerBars[o]->removeFromLegend(); // listed while a pool holds some (setBarData)
    }
    m_otherBars = makeBars(m_plot, tr("Other (page cache, shared memory)"));
    m_otherBars->moveAbove(below);
    m_growthBars = makeBars(m_plot, tr("Run-time growth (up to)"));
    m_growthBars->moveAbove(m_otherBars);

    m_plot->yAxis->setLabel(tr("GiB"));
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->xAxis->grid()->setVisible(false);

    connect(m_plot, &QCustomPlot::mouseMove, this, &MemoryChart::onMouseMove);
    connect(m_session, &SizingSession::estimateChanged, this, &MemoryChart::refresh);
    connect(m_withoutWeightsCheck, &QCheckBox::toggled, this, &MemoryChart::refresh);
    restyle();
    refresh();
}

void MemoryChart::refresh() {
    const bool withoutWeights = m_withoutWeightsCheck->isChecked();
    const Result<MemoryEstimate>& estimate = m_session->estimate();
    if (!estimate.ok() || !m_session->poolUsage()) {
        showError(estimate.ok() ? tr("The estimate could not be placed on this machine's memory.")
                                : QString::fromStdString(estimate.error().message));
        return;
    }
    m_stack->setCurrentWidget(m_plot);
    std::vector<PoolSegments> segments = poolSegments(*m_session->poolUsage(), *estimate);
    const QString speedLine = decodeSpeedToolTipLine(m_speed.predict(), estimate->context.nCtxSeq);
    QStringList breakdown;
    for (PoolSegments& pool : segments) {
        appendDecodeSpeedLine(pool, speedLine);
        breakdown << poolBreakdownText(pool);
        if (withoutWeights) {
            pool = llamafit::withoutWeights(std::move(pool));
        }
    }
    m_breakdownLabel->setText(breakdown.join(u'\n'));
    m_breakdownLabel->show();
    const bool samePools = segments.size() == m_segments.size() &&
                           std::equal(segments.begin(), segments.end(), m_segments.begin(),
                                      [](const PoolSegments& a, const PoolSegments& b) {
                                          return a.poolIndex == b.poolIndex && a.name == b.name;
                                      });
    m_segments = std::move(segments);
    if (!samePools) {
        rebuildItems();
    }
    setBarData();
    // Without weights the scale is the bars' own: the capacity lines would flatten them again.
    double yMax = withoutWeights ? 0.0 : 1.0;
    for (const PoolSegments& pool : m_segments) {
        const bool capacityShown = pool.capacityKnown && !withoutWeights;
        yMax = std::max({yMax, gib(pool.topBytes()), capacityShown ? gib(pool.capacityBytes) : 0.0});
    }
    if (m_session->machine().observedBackendFreeBytes && !withoutWeights) {
        yMax = std::max(yMax, gib(*m_session->machine().observedBackendFreeBytes));
    }
    placeItems(yMax > 0 ? yMax * 1.15 : 1.0);
    updateVerdictLabel();
    m_noteLabel->setText(backendFreeNote());
    m_noteLabel->setVisible(!m_noteLabel->text().isEmpty());
    // Short under the check box; the tooltip says which rules an older build is sized with.
    m_sizedForLabel->setText(QStringLiteral("llama.cpp b%1").arg(m_session->sizedBuild()));
    m_sizedForLabel->setToolTip(sizedForNote());
    m_plot->fitLegend(); // the entries may have changed (a draft model's, a projector's)
}

void MemoryChart::showError(const QString& message) {
    m_segments.clear();
    rebuildItems();
    setBarData();
    m_messageLabel->setText(tr("llama-server would refuse these settings:\n%1").arg(message));
    m_stack->setCurrentWidget(m_messageLabel);
    m_verdictLabel->setText(tr("Refused settings"));
    m_verdictLabel->setPalette(palette());
    m_noteLabel->clear();
    m_noteLabel->hide();
    m_breakdownLabel->clear();
    m_breakdownLabel->hide();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryChart::rebuildItems() {
    for (const PoolItems& items : m_items) {
        for (QCPAbstractItem* item : std::initializer_list<QCPAbstractItem*>{
                 items.outline, items.limit, items.verdict, items.backendFree, items.backendFreeText}) {
            if (item != nullptr) {
                m_plot->removeItem(item);
            }
        }
    }
    m_items.clear();
    for (QCPAbstractItem* item : m_hostItems) {
        m_plot->removeItem(item);
    }
    m_hostItems.clear();
    m_hostLabels.clear();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(m_plot->xAxis->ticker());
    ticker->clear();
    const Machine& machine = m_session->machine();
    placeKeysByHost();
    for (std::size_t i = 0; i < m_segments.size(); ++i) {
        const PoolSegments& pool = m_segments[i];
        ticker->addTick(m_keys[i], tickLabel(pool));
        PoolItems items;
        items.outline = new QCPItemRect(m_plot);
        items.outline->setBrush(Qt::NoBrush);
        items.limit = new QCPItemLine(m_plot);
        items.verdict = new QCPItemText(m_plot);
        items.verdict->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        if (pool.kind == PoolKind::ApuCarveout && machine.observedBackendFreeBytes) {
            items.backendFree = new QCPItemLine(m_plot);
            items.backendFreeText = new QCPItemText(m_plot);
            items.backendFreeText->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        }
        m_items.push_back(items);
    }
    m_plot->xAxis->setRange(0.4, (m_keys.empty() ? 0.0 : m_keys.back()) + 0.9);
    restyle();
}

// One column per host (hostcolumns.h): a dashed line between hosts and the host's name under its
// bars. One machine alone keeps the plain row of bars.
void MemoryChart::placeKeysByHost() {
    std::vector<std::size_t> drawnPools;
    for (const PoolSegments& pool : m_segments) {
        drawnPools.push_back(pool.poolIndex);
    }
    const BarPlacement placement = placeBarsByHost(drawnPools, m_session->machine());
    m_keys = placement.keys;
    const bool grouped = !placement.columns.empty();
    m_groupedByHost = grouped;
    m_plot->xAxis->setLabel(QString());
    if (!grouped) {
        return;
    }
    // The host names sit where the axis label would: a blank label keeps the room for them.
    m_plot->xAxis->setLabel(QStringLiteral(" "));
    QFont bold = font();
    bold.setBold(true);
    m_plot->xAxis->setLabelFont(bold);
    qsizetype tickLines = 1;
    for (const PoolSegments& pool : m_segments) {
        tickLines = std::max(tickLines, tickLabel(pool).count(u'\n') + 1);
    }
    const int belowTicks =
        m_plot->xAxis->offset() + m_plot->xAxis->tickLengthOut() + m_plot->xAxis->tickLabelPadding() +
        static_cast<int>(tickLines) * QFontMetrics(m_plot->xAxis->tickLabelFont()).lineSpacing() +
        m_plot->xAxis->labelPadding();
    for (std::size_t c = 0; c < placement.columns.size(); ++c) {
        const HostColumn& column = placement.columns[c];
        auto* label = new QCPItemText(m_plot);
        label->setClipToAxisRect(false);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords((column.firstKey + column.lastKey) / 2, 1.0);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
        label->setPadding(QMargins(0, belowTicks, 0, 0));
        label->setFont(bold);
        label->setText(column.endpoint.empty() ? tr("this machine")
                                               : QString::fromStdString(column.endpoint));
        m_hostItems.push_back(label);
        m_hostLabels.push_back(label);
        if (c > 0) {
            auto* separator = new QCPItemLine(m_plot);
            const double between = column.firstKey - (1.0 + kHostGap) / 2;
            separator->start->setTypeY(QCPItemPosition::ptAxisRectRatio);
            separator->end->setTypeY(QCPItemPosition::ptAxisRectRatio);
            separator->start->setCoords(between, 0.0);
            separator->end->setCoords(between, 1.0);
            m_hostItems.push_back(separator);
        }
    }
}

void MemoryChart::setBarData() {
    QVector<double> keys;
    QVector<double> reservation, other, growth;
    std::array<QVector<double>, 6> components;
    std::array<QVector<double>, 6> componentKeys;
    std::array<QVector<double>, kChartOwnerCount> owners, ownerKeys;
    QVector<double> otherKeys, growthKeys, reservationKeys;
    // Zero segments are left out: QCPBars would draw them as a line across the stack.
    auto push = [](QVector<double>& k, QVector<double>& v, double key, std::uint64_t bytes) {
        if (bytes > 0) {
            k << key;
            v << gib(bytes);
        }
    };
    for (std::size_t i = 0; i < m_segments.size(); ++i) {
        const PoolSegments& pool = m_segments[i];
        const double key = m_keys[i];
        push(reservationKeys, reservation, key, pool.reservationBytes);
        for (std::size_t c = 0; c < components.size(); ++c) {
            push(componentKeys[c], components[c], key, pool.componentBytes[c]);
        }
        for (std::size_t o = 0; o < owners.size(); ++o) {
            push(ownerKeys[o], owners[o], key, pool.ownerBytes[o]);
        }
        push(otherKeys, other, key, pool.otherBytes);
        push(growthKeys, growth, key, pool.growthBytes);
    }
    m_reservationBars->setData(reservationKeys, reservation, true);
    for (std::size_t c = 0; c < components.size(); ++c) {
        m_componentBars[c]->setData(componentKeys[c], components[c], true);
    }
    for (std::size_t o = 0; o < owners.size(); ++o) {
        m_ownerBars[o]->setData(ownerKeys[o], owners[o], true);
        if (owners[o].isEmpty()) {
            m_ownerBars[o]->removeFromLegend();
        } else {
            m_ownerBars[o]->addToLegend();
        }
    }
    m_otherBars->setData(otherKeys, other, true);
    m_growthBars->setData(growthKeys, growth, true);
}

void MemoryChart::placeItems(double yMaxGiB) {
    m_plot->yAxis->setRange(0, yMaxGiB);
    const double lift = yMaxGiB * 0.01;
    for (std::size_t i = 0; i < m_segments.size(); ++i) {
        const PoolSegments& pool = m_segments[i];
        PoolItems& items = m_items[i];
        const double key = m_keys[i];
        const double top = gib(pool.topBytes());
        items.outline->topLeft->setCoords(key - kHalfBar, top);
        items.outline->bottomRight->setCoords(key + kHalfBar, 0);
        items.outline->setPen(QPen(verdictColor(pool.verdict), 2));
        const bool capacityShown = pool.capacityKnown && !m_withoutWeightsCheck->isChecked();
        items.limit->setVisible(capacityShown);
        const double limit = gib(pool.capacityBytes);
        items.limit->start->setCoords(key - kHalfBar - 0.08, limit);
        items.limit->end->setCoords(key + kHalfBar + 0.08, limit);
        items.limit->setPen(QPen(palette().color(QPalette::Text), 2));
        items.verdict->position->setCoords(key, std::max(top, capacityShown ? limit : 0.0) + lift);
        items.verdict->setText(poolVerdictText(pool));
        items.verdict->setColor(verdictColor(pool.verdict));
        if (items.backendFree != nullptr) {
            items.backendFree->setVisible(capacityShown);
            items.backendFreeText->setVisible(capacityShown);
            const double observed = gib(*m_session->machine().observedBackendFreeBytes);
            items.backendFree->start->setCoords(key + kHalfBar + 0.02, observed);
            items.backendFree->end->setCoords(key + kHalfBar + 0.3, observed);
            items.backendFreeText->position->setCoords(key + kHalfBar + 0.02, observed + lift);
            items.backendFreeText->setText(tr("driver: %1 free")
                                               .arg(QString::fromStdString(formatMiBGrouped(
                                                   *m_session->machine().observedBackendFreeBytes))));
        }
    }
}

void MemoryChart::updateVerdictLabel() {
    const PoolUsage& usage = *m_session->poolUsage();
    QStringList worst;
    for (const PoolSegments& pool : m_segments) {
        if (pool.verdict == usage.verdict) {
            worst << tr("%1: %2").arg(pool.name, poolVerdictText(pool));
        }
    }
    m_verdictLabel->setText(tr("Overall: %1 (%2)").arg(verdictLabel(usage.verdict), worst.join(tr("; "))));
    QPalette labelPalette = palette();
    labelPalette.setColor(QPalette::WindowText, verdictColor(usage.verdict));
    m_verdictLabel->setPalette(labelPalette);
}

QString MemoryChart::sizedForNote() const {
    return tr("Sized for llama.cpp %1: the build of the chosen llama-server once its version is read, "
              "else the build LlamaFit checks its rules against")
        .arg(QString::fromStdString(sizedForText(m_session->sizedBuild())));
}

QString MemoryChart::backendFreeNote() const {
    const Machine& machine = m_session->machine();
    if (!isApu(machine) || !machine.observedBackendFreeBytes || machine.gpus.empty() ||
        findPool(machine, PoolKind::ApuCarveout) == nullptr) {
        return {};
    }
    // ggml-vulkan.cpp ggml_backend_vk_get_device_memory sums every heap of an integrated GPU
    // (the carve-out and the shared/GTT heap); see core/machine/backendreport.h.
    const std::uint64_t carveOut = findPool(machine, PoolKind::ApuCarveout)->capacityBytes;
    return tr("The driver reports %1 free, more than the %2 BIOS carve-out: llama.cpp adds up every "
              "memory heap of an integrated GPU, including shared GPU memory that is system RAM the OS "
              "also uses. The line is the carve-out, which is what the GPU really has.")
        .arg(QString::fromStdString(formatMiBGrouped(*machine.observedBackendFreeBytes)),
             QString::fromStdString(formatGiBShort(carveOut)));
}

void MemoryChart::restyle() {
    applyPalette(m_plot, palette());
    const QColor text = palette().color(QPalette::Text);
    const QPen separator(palette().color(QPalette::Base), 1);
    QColor neutral = text;
    neutral.setAlpha(140);
    m_reservationBars->setPen(QPen(neutral, 1));
    m_reservationBars->setBrush(QBrush(neutral, Qt::BDiagPattern));
    for (std::size_t i = 0; i < m_componentBars.size(); ++i) {
        m_componentBars[i]->setPen(separator);
        m_componentBars[i]->setBrush(componentColor(kChartComponentOrder[i]));
    }
    for (std::size_t o = 0; o < m_ownerBars.size(); ++o) {
        m_ownerBars[o]->setPen(separator);
        m_ownerBars[o]->setBrush(ownerColor(kChartOwnerOrder[o]));
    }
    QColor otherColor = componentColor(Component::Model);
    m_otherBars->setPen(separator);
    m_otherBars->setBrush(QBrush(otherColor, Qt::Dense5Pattern));
    QColor light = text;
    light.setAlpha(40);
    m_growthBars->setPen(QPen(neutral, 1, Qt::DashLine));
    m_growthBars->setBrush(light);
    QColor faint = text;
    faint.setAlpha(110);
    for (QCPItemText* label : m_hostLabels) {
        label->setColor(text);
    }
    for (QCPAbstractItem* item : m_hostItems) {
        if (auto* separator = qobject_cast<QCPItemLine*>(item)) {
            separator->setPen(QPen(faint, 1, Qt::DashLine));
        }
    }
    for (const PoolItems& items : m_items) {
        items.verdict->setFont(font());
        if (items.backendFree != nullptr) {
            items.backendFree->setPen(QPen(faint, 1.5, Qt::DashLine));
            items.backendFreeText->setColor(faint);
            items.backendFreeText->setFont(font());
        }
    }
}

void MemoryChart::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        restyle();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

int MemoryChart::drawnIndex(std::size_t poolIndex) const {
    for (std::size_t i = 0; i < m_segments.size(); ++i) {
        if (m_segments[i].poolIndex == poolIndex) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

double MemoryChart::barValueMiB(std::size_t poolIndex, Component component) const {
    const int index = drawnIndex(poolIndex);
    if (index < 0) {
        return 0.0;
    }
    return barValueGiB(m_componentBars[chartComponentIndex(component)],
                       m_keys[static_cast<std::size_t>(index)]) *
           1024.0;
}

double MemoryChart::limitMiB(std::size_t poolIndex) const {
    const int index = drawnIndex(poolIndex);
    if (index < 0 || !m_items[static_cast<std::size_t>(index)].limit->visible()) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return m_items[static_cast<std::size_t>(index)].limit->start->value() * 1024.0;
}

double MemoryChart::backendFreeMiB(std::size_t poolIndex) const {
    const int index = drawnIndex(poolIndex);
    if (index < 0 || m_items[static_cast<std::size_t>(index)].backendFree == nullptr) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return m_items[static_cast<std::size_t>(index)].backendFree->start->value() * 1024.0;
}

QString MemoryChart::tickLabel(const PoolSegments& pool) const {
    if (!m_groupedByHost) {
        return pool.name;
    }
    // Under the host's own label an RPC server's endpoint would be said twice.
    return pool.kind == PoolKind::RpcHost ? tr("RPC server") : onTwoLines(pool.name);
}

double MemoryChart::barKey(std::size_t poolIndex) const {
    const int index = drawnIndex(poolIndex);
    return index < 0 ? std::numeric_limits<double>::quiet_NaN() : m_keys[static_cast<std::size_t>(index)];
}

QStringList MemoryChart::hostLabels() const {
    QStringList labels;
    for (const QCPItemText* label : m_hostLabels) {
        labels << label->text();
    }
    return labels;
}

QString MemoryChart::verdictText(std::size_t poolIndex) const {
    const int index = drawnIndex(poolIndex);
    return index < 0 ? QString() : m_items[static_cast<std::size_t>(index)].verdict->text();
}

double MemoryChart::ownerBarValueMiB(std::size_t poolIndex, BufferOwner owner) const {
    const int index = drawnIndex(poolIndex);
    return index < 0
               ? 0.0
               : barValueGiB(m_ownerBars[chartOwnerIndex(owner)], m_keys[static_cast<std::size_t>(index)]) *
                     1024.0;
}

QString MemoryChart::ownerToolTipAt(std::size_t poolIndex, BufferOwner owner) const {
    const int index = drawnIndex(poolIndex);
    return index < 0 ? QString() : m_segments[static_cast<std::size_t>(index)].ownerToolTip(owner);
}

QString MemoryChart::toolTipAt(std::size_t poolIndex, Component component) const {
    const int index = drawnIndex(poolIndex);
    return index < 0 ? QString() : m_segments[static_cast<std::size_t>(index)].componentToolTip(component);
}

void MemoryChart::onMouseMove(QMouseEvent* event) {
    const QString text = toolTipAtPixel(event->position());
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else {
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    }
}

// The segment under a pixel, bottom to top as drawn; the faint driver line beside a bar.
QString MemoryChart::toolTipAtPixel(const QPointF& pixel) const {
    const double key = m_plot->xAxis->pixelToCoord(pixel.x());
    const double valueGiB = m_plot->yAxis->pixelToCoord(pixel.y());
    if (m_keys.empty() || valueGiB < 0) {
        return {};
    }
    // The nearest bar (keys are not 1, 2, 3... when hosts are grouped).
    const auto nearest = std::min_element(m_keys.begin(), m_keys.end(), [key](double a, double b) {
        return std::abs(a - key) < std::abs(b - key);
    });
    if (std::abs(*nearest - key) > 0.5) {
        return {};
    }
    const std::size_t index = static_cast<std::size_t>(nearest - m_keys.begin());
    const PoolSegments& pool = m_segments[index];
    const PoolItems& items = m_items[index];
    const double offset = key - *nearest;
    if (items.backendFree != nullptr && items.backendFree->visible() && offset > kHalfBar &&
        std::abs(m_plot->yAxis->coordToPixel(items.backendFree->start->value()) - pixel.y()) < 6) {
        return backendFreeNote();
    }
    if (std::abs(offset) > kHalfBar) {
        return {};
    }
    std::vector<std::pair<std::uint64_t, QString>> stack{{pool.reservationBytes, pool.reservationToolTip}};
    for (std::size_t c = 0; c < kChartComponentOrder.size(); ++c) {
        stack.emplace_back(pool.componentBytes[c], pool.componentToolTips[c]);
    }
    for (std::size_t o = 0; o < kChartOwnerOrder.size(); ++o) {
        stack.emplace_back(pool.ownerBytes[o], pool.ownerToolTips[o]);
    }
    stack.emplace_back(pool.otherBytes, pool.otherToolTip);
    stack.emplace_back(pool.growthBytes, pool.growthToolTip);
    double base = 0;
    for (const auto& [bytes, text] : stack) {
        const double top = base + gib(bytes);
        if (bytes > 0 && valueGiB >= base && valueGiB < top) {
            return text;
        }
        base = top;
    }
    return {};
}

} // namespace llamafit

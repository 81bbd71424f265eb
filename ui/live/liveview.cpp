// The live view while llama-server runs; see liveview.h.
#include "ui/live/liveview.h"
#include "ui/sessionspeed.h"

#include "core/machine/speedmodel.h"
#include "core/server/allocationlog.h"
#include "core/server/predictioncomparison.h"
#include "core/system/apikeyfile.h"
#include "core/system/devicesampler.h"
#include "core/system/serverprobe.h"
#include "ui/live/comparisontable.h"
#include "ui/live/logpanel.h"
#include "ui/live/memorytimechart.h"
#include "ui/live/slotfilltable.h"
#include "ui/live/throughputchart.h"
#include "ui/sizingsession.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace llamafit {

LiveView::LiveView(SizingSession* session, ServerProcess* process, QWidget* parent)
    : QWidget(parent), m_session(session), m_process(process), m_sessionSpeed(session) {
    setObjectName(QStringLiteral("liveView"));

    m_stateLabel = new QLabel(this);
    m_stateLabel->setObjectName(QStringLiteral("liveStateLabel"));
    // Every finished request counts here, even one shorter than the poll interval that the
    // rate chart cannot show (core/server/throughput.h runTotals).
    m_runTotalsLabel = new QLabel(this);
    m_runTotalsLabel->setObjectName(QStringLiteral("runTotalsLabel"));
    m_speedLabel = new QLabel(tr("Decode: —"), this);
    m_speedLabel->setObjectName(QStringLiteral("liveSpeedLabel"));
    m_speedLabel->setWordWrap(true);
    m_learningLabel = new QLabel(this);
    m_learningLabel->setObjectName(QStringLiteral("liveLearningLabel"));
    m_learningLabel->setWordWrap(true);
    m_memoryChart = new MemoryTimeChart(this);
    m_throughputChart = new ThroughputChart(this);
    m_slotTable = new SlotFillTable(this);
    m_comparisonTable = new ComparisonTable(this);
    m_comparisonNote = new QLabel(this);
    m_comparisonNote->setObjectName(QStringLiteral("comparisonNoteLabel"));
    m_comparisonNote->setWordWrap(true);
    m_logPanel = new LogPanel(this);

    auto* charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(m_memoryChart);
    charts->addWidget(m_throughputChart);
    auto* comparison = new QWidget;
    auto* comparisonLayout = new QVBoxLayout(comparison);
    comparisonLayout->setContentsMargins(0, 0, 0, 0);
    comparisonLayout->addWidget(m_comparisonTable, 1);
    comparisonLayout->addWidget(m_comparisonNote);
    auto* tables = new QSplitter(Qt::Horizontal);
    tables->addWidget(m_slotTable);
    tables->addWidget(comparison);
    auto* rows = new QSplitter(Qt::Vertical);
    rows->setObjectName(QStringLiteral("liveSplitter"));
    rows->addWidget(charts);
    rows->addWidget(tables);
    rows->addWidget(m_logPanel);
    rows->setStretchFactor(0, 3); // the charts first: they are what the tab is for
    rows->setStretchFactor(1, 2);
    rows->setStretchFactor(2, 2);
    auto* layout = new QVBoxLayout(this);
    auto* header = new QHBoxLayout;
    header->addWidget(m_stateLabel);
    header->addStretch(1);
    header->addWidget(m_runTotalsLabel);
    layout->addLayout(header);
    layout->addWidget(m_speedLabel);
    layout->addWidget(m_learningLabel);
    layout->addWidget(rows, 1);

    m_refreshTimer.setInterval(kRefreshInterval);
    connect(&m_refreshTimer, &QTimer::timeout, this, &LiveView::refresh);
    connect(m_process, &ServerProcess::stateChanged, this, &LiveView::onStateChanged);
    connect(m_process, &ServerProcess::logLine, this, [this](const QString& line) {
        m_pendingLog.append(line);
        // While hidden the batch waits; it never holds more than the panel would show.
        if (m_pendingLog.size() > m_logPanel->maximumLines()) {
            m_pendingLog.remove(0, m_pendingLog.size() - m_logPanel->maximumLines());
        }
    });

    // Created while a run is under way: join it (its estimate is the session's current one).
    const ServerProcess::State state = m_process->state();
    if (state != ServerProcess::State::Stopped) {
        beginRun();
        m_pendingLog = QString::fromStdString(m_process->log()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        if (state != ServerProcess::State::Starting) {
            onStateChanged(state);
        }
    }
    m_stateLabel->setText(tr("llama-server: %1").arg(stateName(state)));
}

LiveView::~LiveView() = default;

QString LiveView::stateName(ServerProcess::State state) {
    switch (state) {
    case ServerProcess::State::Stopped:
        return tr("stopped");
    case ServerProcess::State::Starting:
        return tr("starting");
    case ServerProcess::State::Loading:
        return tr("loading the model");
    case ServerProcess::State::Ready:
        return tr("ready");
    case ServerProcess::State::Stopping:
        return tr("stopping");
    case ServerProcess::State::Failed:
        return tr("failed");
    }
    return {};
}

void LiveView::setWindow(std::chrono::seconds window) {
    m_memoryChart->setWindow(window);
    m_throughputChart->setWindow(window);
    m_memoryDirty = true;
    m_throughputDirty = true;
}

std::chrono::seconds LiveView::window() const {
    return m_memoryChart->window();
}

void LiveView::onStateChanged(ServerProcess::State state) {
    m_stateLabel->setText(tr("llama-server: %1").arg(stateName(state)));
    switch (state) {
    case ServerProcess::State::Starting:
        beginRun();
        break;
    case ServerProcess::State::Loading:
        break;
    case ServerProcess::State::Ready:
        if (!m_polling) {
            compare();
            startPolling();
        }
        break;
    case ServerProcess::State::Stopping:
    case ServerProcess::State::Stopped:
    case ServerProcess::State::Failed:
        stopPolling();
        if (state != ServerProcess::State::Stopping) {
            // Draw what is left (the exit-time log lines, the last samples), then rest.
            refresh();
            m_active = false;
            m_refreshTimer.stop();
        }
        if (state == ServerProcess::State::Stopped) {
            learnFromRun();
        }
        break;
    }
}

void LiveView::beginRun() {
    stopPolling();
    m_probe.reset();
    m_sampler.reset();
    const Result<MemoryEstimate>& estimate = m_session->estimate();
    m_prediction = estimate ? std::optional<MemoryEstimate>(*estimate) : std::nullopt;
    m_machine = m_session->machine();
    m_model = m_session->model().info;
    m_modelPath = m_session->model().path;
    m_liveRun = {};
    m_readyAt = {};
    m_learningLabel->clear();
    m_bandwidth = m_session->bandwidthBytesPerSecond();
    m_efficiency = m_sessionSpeed.efficiency();
    m_liveSpeed.reset();
    m_speedLabel->setText(tr("Decode: —"));
    m_speedLabel->setToolTip(QString());
    m_memoryChart->clearPoints();
    m_memoryChart->setDeviceLabels({});
    m_memoryChart->setReferences(memoryReferences(m_prediction, m_machine));
    m_throughputChart->reset();
    m_slotTable->setRowCount(0);
    m_comparisonTable->clearComparison();
    m_comparisonNote->setText(
        estimate ? QString()
                 : tr("No prediction to compare: %1").arg(QString::fromStdString(estimate.error().message)));
    m_logPanel->clear();
    m_pendingLog.clear();
    m_memoryDirty = true;
    m_throughputDirty = true;
    m_active = true;
    if (isVisible()) {
        m_refreshTimer.start();
    }
}

void LiveView::compare() {
    if (!m_prediction) {
        return;
    }
    // At Ready the log holds every buffer line: Ready is the first /health 200, which
    // tools/server answers only once the model and context are loaded (503 "Loading model"
    // until then), and the buffer lines are printed while loading.
    const Result<AllocationLog> log = parseAllocationLog(m_process->log());
    if (!log) {
        m_comparisonNote->setText(
            tr("The server's log could not be read: %1").arg(QString::fromStdString(log.error().message)));
        return;
    }
    const PredictionComparison comparison = comparePrediction(*m_prediction, *log);
    m_comparisonTable->setComparison(comparison);
    m_comparisonNote->setText(comparison.anyFlagged()
                                  ? tr("Highlighted components differ from the prediction by more than 1 %.")
                                  : tr("Every component is within 1 % of the prediction."));
}

void LiveView::setBenchmarkFolder(const QString& folder) {
    m_sessionSpeed.setStore(BenchmarkStore(folder));
}

void LiveView::startPolling() {
    m_readyTime = std::chrono::steady_clock::now();
    m_readyAt = QDateTime::currentDateTimeUtc();
    const std::optional<std::int64_t> pid =
        m_process->processId() > 0 ? std::optional<std::int64_t>(m_process->processId()) : std::nullopt;

    m_probe = std::make_unique<ServerProbe>(m_process->baseUrl());
    m_probe->setInterval(m_sampleInterval);
    // A server started with a key (network access chosen) answers 401 without it. An unreadable
    // key file shows as the endpoints' failures in the live view.
    if (const Result<std::string> key = apiKeyOfServer(m_process->arguments())) {
        m_probe->setApiKey(*key);
    }
    m_seenSlotRates = 0;
    m_seenTotalRates = 0;
    m_seenSlots = 0;
    connect(m_probe.get(), &ServerProbe::sampled, this, &LiveView::onProbeSampled);

    m_sampler = std::make_unique<DeviceSampler>(
        m_readerFactory ? m_readerFactory() : std::vector<std::unique_ptr<DeviceMemoryReader>>{});
    m_sampler->setInterval(m_sampleInterval);
    m_sampler->setProcessId(pid);
    m_memoryChart->setDeviceLabels(m_sampler->deviceLabels());
    connect(m_sampler.get(), &DeviceSampler::sampled, this, &LiveView::onDeviceSampled);

    m_probe->start();
    m_sampler->start();
    m_polling = true;
    m_active = true;
    if (isVisible()) {
        m_refreshTimer.start();
    }
}

void LiveView::stopPolling() {
    if (m_probe) {
        m_probe->stop();
    }
    if (m_sampler) {
        m_sampler->stop();
    }
    m_polling = false;
}

double LiveView::secondsSinceReady(std::chrono::steady_clock::time_point time) const {
    return std::chrono::duration<double>(time - m_readyTime).count();
}

void LiveView::onProbeSampled() {
    // Tells the failure classifier whether a request was running (as the CLI's launch does).
    m_process->setGenerating(m_probe->anySlotBusy());
    const auto& slotRates = m_probe->slotThroughputs();
    if (slotRates.pushedCount() != m_seenSlotRates && !slotRates.empty()) {
        m_seenSlotRates = slotRates.pushedCount();
        m_throughputChart->addSlots(secondsSinceReady(slotRates.latest().time), slotRates.latest().value);
        m_throughputDirty = true;
    }
    const auto& totals = m_probe->totalThroughputs();
    if (totals.pushedCount() != m_seenTotalRates && !totals.empty()) {
        m_seenTotalRates = totals.pushedCount();
        m_throughputChart->addTotal(secondsSinceReady(totals.latest().time), totals.latest().value);
        m_throughputDirty = true;
    }
    if (!m_probe->metrics().empty()) {
        const RunTotals totals = runTotals(m_probe->metrics().latest().value);
        showRunTotals(totals);
        showLiveSpeed(totals);
        m_liveRun = tallyLiveRun(m_liveRun, totals, m_liveSpeed);
        showLearning();
    }
    if (m_probe->slotStates().pushedCount() != m_seenSlots) {
        m_seenSlots = m_probe->slotStates().pushedCount();
        m_slotsDirty = true;
    }
}

void LiveView::showRunTotals(const RunTotals& totals) {
    const auto rate = [](const std::optional<double>& tokensPerSecond) {
        return tokensPerSecond ? tr(" (%1 t/s)").arg(*tokensPerSecond, 0, 'f', 1) : QString();
    };
    m_runTotalsLabel->setText(tr("This run: %1 tokens generated%2, %3 prompt tokens%4")
                                  .arg(totals.generatedTokens)
                                  .arg(rate(totals.generationTokensPerSecond))
                                  .arg(totals.promptTokens)
                                  .arg(rate(totals.promptTokensPerSecond)));
}

void LiveView::showLiveSpeed(const RunTotals& totals) {
    if (!m_prediction) {
        m_speedLabel->setText(tr("Decode: — (no prediction to compare with)"));
        return;
    }
    static const std::vector<SlotState> kNoSlots;
    static const std::vector<SlotThroughput> kNoRates;
    const auto& slotStates = m_probe->slotStates();
    const auto& rates = m_probe->slotThroughputs();
    m_liveSpeed = llamafit::liveSpeed(m_model, *m_prediction, m_bandwidth, m_efficiency,
                                      slotStates.empty() ? kNoSlots : slotStates.latest().value,
                                      rates.empty() ? kNoRates : rates.latest().value, totals);
    if (!m_liveSpeed) {
        m_speedLabel->setText(tr("Decode: — (no tokens generated yet)"));
        return;
    }
    const LiveSpeed& speed = *m_liveSpeed;
    const auto gbPerSecond = [](double bytesPerSecond) {
        return QString::number(bytesPerSecond / 1e9, 'f', 1);
    };
    const QString measured =
        tr("Decode %1 t/s %2")
            .arg(speed.measured.tokensPerSecond, 0, 'f', 1)
            .arg(speed.measured.source == MeasuredRateSource::Slots ? tr("now") : tr("run average"));
    if (!speed.machineBytesPerSecond || !speed.expectedTokensPerSecond || !speed.fractionOfMachine) {
        m_speedLabel->setText(tr("%1 (expected: —) · effective bandwidth %2 GB/s (this machine has no "
                                 "bandwidth figure to compare with)")
                                  .arg(measured, gbPerSecond(speed.effectiveBytesPerSecond)));
    } else {
        m_speedLabel->setText(tr("%1 (expected %2) · effective bandwidth %3 GB/s of %4 GB/s (%5 %)")
                                  .arg(measured)
                                  .arg(*speed.expectedTokensPerSecond, 0, 'f', 1)
                                  .arg(gbPerSecond(speed.effectiveBytesPerSecond))
                                  .arg(gbPerSecond(static_cast<double>(*speed.machineBytesPerSecond)))
                                  .arg(*speed.fractionOfMachine * 100, 0, 'f', 0));
    }
    m_speedLabel->setToolTip(
        tr("Effective bandwidth: the measured tokens/s x %1 MiB read per token (active "
           "weights, and the KV cache of %2 filled tokens per slot). Expected: the speed "
           "model's bound x efficiency %3 (%4).")
            .arg(static_cast<double>(speed.bytesPerToken) / (1024.0 * 1024.0), 0, 'f', 1)
            .arg(speed.depthTokens)
            .arg(speed.efficiency.decode, 0, 'f', 2)
            .arg(efficiencySourceText(speed.efficiency)));
}

void LiveView::showLearning() {
    if (m_modelPath.empty() || m_liveRun.generatedTokens == 0) {
        return; // a card has no file to learn for; nothing measured against a bound yet
    }
    if (m_liveRun.generatedTokens < kMinLearnedLiveTokens) {
        m_learningLabel->setText(tr("Learning: %1 of the %2 generated tokens a run needs before the speed "
                                    "model learns from it")
                                     .arg(m_liveRun.generatedTokens)
                                     .arg(kMinLearnedLiveTokens));
        return;
    }
    m_learningLabel->setText(
        tr("Learning: %1 tokens at %2 % of the bandwidth bound so far; stored for %3 "
           "when the server stops")
            .arg(m_liveRun.generatedTokens)
            .arg(100.0 * m_liveRun.boundSeconds / m_liveRun.generationSeconds, 0, 'f', 0)
            .arg(QString::fromStdString(m_machine.name.empty() ? m_machine.id : m_machine.name)));
}

// The run's decode average against its bound becomes one of the launched machine's live runs;
// the advice panel and the chart pick it up (SessionSpeed follows the store's time).
void LiveView::learnFromRun() {
    if (m_modelPath.empty() || !m_prediction || !m_readyAt.isValid() || m_liveRun.generatedTokens == 0) {
        return;
    }
    const std::optional<LiveRunRecord> record = finishLiveRun(
        m_liveRun, BenchmarkStore::liveRunIdentity(m_machine.id, speedBackend(m_machine), m_modelPath,
                                                   m_model.isMoe(), m_readyAt, m_efficiency));
    if (!record) {
        m_learningLabel->setText(tr("Not learned from: %1 tokens were measured, %2 are needed")
                                     .arg(m_liveRun.generatedTokens)
                                     .arg(kMinLearnedLiveTokens));
        return;
    }
    BenchmarkStore store = m_sessionSpeed.store();
    const Result<QString> stored = store.appendLiveRun(*record);
    if (!stored) {
        m_learningLabel->setText(tr("This run could not be stored for learning: %1")
                                     .arg(QString::fromStdString(stored.error().message)));
        return;
    }
    m_learningLabel->setText(
        tr("Learned from this run: %1 tokens at %2 t/s, %3 % of the %4 t/s bound; "
           "estimates for %5 now use it")
            .arg(record->generatedTokens)
            .arg(record->decodeTps, 0, 'f', 1)
            .arg(100.0 * record->decodeTps / record->boundTps, 0, 'f', 0)
            .arg(record->boundTps, 0, 'f', 1)
            .arg(QString::fromStdString(m_machine.name.empty() ? m_machine.id : m_machine.name)));
    m_learningLabel->setToolTip(*stored);
    emit runLearned();
}

void LiveView::onDeviceSampled(const DeviceSample& sample) {
    m_memoryChart->addSample(secondsSinceReady(sample.time), sample);
    m_memoryDirty = true;
}

void LiveView::refresh() {
    if (!isVisible()) {
        return; // drawn at the next show
    }
    bool painted = false;
    if (!m_pendingLog.isEmpty()) {
        m_logPanel->appendLines(m_pendingLog);
        m_pendingLog.clear();
        painted = true;
    }
    if (m_memoryDirty) {
        m_memoryChart->refresh();
        m_memoryDirty = false;
        painted = true;
    }
    if (m_throughputDirty) {
        m_throughputChart->refresh();
        m_throughputDirty = false;
        painted = true;
    }
    if (m_slotsDirty && m_probe && !m_probe->slotStates().empty()) {
        m_slotTable->setSlots(m_probe->slotStates().latest().value);
        m_slotsDirty = false;
        painted = true;
    }
    if (painted) {
        ++m_refreshCount;
    }
}

void LiveView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_active) {
        m_refreshTimer.start();
    }
    refresh();
}

void LiveView::hideEvent(QHideEvent* event) {
    QWidget::hideEvent(event);
    m_refreshTimer.stop();
}

int LiveView::memorySampleCount() const {
    return m_memoryChart->rssPointCount();
}

int LiveView::throughputSampleCount() const {
    return m_throughputChart->totalPointCount();
}

double LiveView::latestTotalTokensPerSecond() const {
    return m_throughputChart->latestTotalTokensPerSecond();
}

double LiveView::peakTotalTokensPerSecond() const {
    return m_throughputChart->peakTotalTokensPerSecond();
}

} // namespace llamafit

// Solver buttons and the decode-speed bound; see advicepanel.h.
#include "ui/settings/advicepanel.h"
#include "ui/sessionspeed.h"

#include "core/machine/kvpairspeed.h"
#include "core/sizing/solvers.h"
#include "ui/chartstyle.h"
#include "ui/sizingsession.h"

#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>

#include <cmath>

namespace llamafit {

namespace {

constexpr double kBytesPerGb = 1e9; // vendors quote bandwidth in decimal GB/s (bandwidth.h)

// "32k" for whole multiples of 1024 tokens, the exact count otherwise.
QString tokensText(std::uint32_t tokens) {
    return tokens % 1024 == 0 && tokens > 0 ? QStringLiteral("%1k").arg(tokens / 1024)
                                            : QString::number(tokens);
}

QPushButton* makeButton(const QString& name, const QString& text, const QString& toolTip) {
    auto* button = new QPushButton(text);
    button->setObjectName(name);
    button->setToolTip(toolTip);
    return button;
}

} // namespace

AdvicePanel::AdvicePanel(SizingSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_speed(session) {
    buildControls();
    showMachine();
    showEstimate();
    connect(m_largestContextButton, &QPushButton::clicked, this, &AdvicePanel::adviseLargestContext);
    connect(m_bestKvButton, &QPushButton::clicked, this, &AdvicePanel::adviseBestKvPair);
    connect(m_mostGpuLayersButton, &QPushButton::clicked, this, &AdvicePanel::adviseMostGpuLayers);
    connect(m_bandwidthSpin, &QDoubleSpinBox::valueChanged, this, [this](double gbPerSecond) {
        // 0 ("unknown") falls back to the machine's own figure.
        m_session->setBandwidthOverride(gbPerSecond > 0
                                            ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(
                                                  std::llround(gbPerSecond * kBytesPerGb)))
                                            : std::nullopt);
    });
    connect(m_bandwidthResetButton, &QPushButton::clicked, this,
            [this] { m_session->setBandwidthOverride(std::nullopt); });
    connect(m_session, &SizingSession::machineChanged, this, &AdvicePanel::showMachine);
    connect(m_session, &SizingSession::estimateChanged, this, &AdvicePanel::showEstimate);
    connect(m_session, &SizingSession::modelChanged, m_resultLabel, [this] {
        m_resultLabel->clear();
        m_resultLabel->hide();
    });
}

void AdvicePanel::buildControls() {
    m_largestContextButton =
        makeButton(QStringLiteral("largestContextButton"), tr("Largest context that fits"),
                   tr("Sets -c to the largest context that fits this machine with the current K/V types"));
    m_bestKvButton = makeButton(QStringLiteral("bestKvButton"), tr("Best KV types for this context"),
                                tr("Sets -ctk / -ctv to the most precise pair that fits the current context "
                                   "(K kept at least as precise as V)"));
    m_mostGpuLayersButton = makeButton(QStringLiteral("mostGpuLayersButton"), tr("Most GPU layers"),
                                       tr("Sets -ngl to the most layers that fit the GPU memory"));
    m_resultLabel = new QLabel;
    m_resultLabel->setObjectName(QStringLiteral("adviceResultLabel"));
    m_resultLabel->setWordWrap(true);
    m_resultLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_resultLabel->hide(); // shown with a result: an empty row costs a small screen its last control
    m_decodeSpeedLabel = new QLabel;
    m_decodeSpeedLabel->setObjectName(QStringLiteral("decodeSpeedLabel"));
    m_decodeSpeedLabel->setWordWrap(true);
    m_decodeSpeedLabel->setToolTip(tr("An upper bound: memory bandwidth ÷ bytes read per generated token "
                                      "(active weights + the KV cache up to the fill). Real decoding reaches "
                                      "roughly 50–80 % of it."));
    m_bandwidthSpin = new QDoubleSpinBox;
    m_bandwidthSpin->setObjectName(QStringLiteral("bandwidthSpin"));
    m_bandwidthSpin->setRange(0, 100000);
    m_bandwidthSpin->setDecimals(1);
    m_bandwidthSpin->setSuffix(tr(" GB/s"));
    m_bandwidthSpin->setSpecialValueText(tr("unknown"));
    m_bandwidthSpin->setKeyboardTracking(false);
    m_bandwidthSpin->setToolTip(tr("Memory bandwidth the weights are read at, in decimal GB/s; the machine's "
                                   "figure unless you change it"));
    m_bandwidthResetButton = makeButton(QStringLiteral("bandwidthResetButton"), tr("Reset"),
                                        tr("Use the machine's own bandwidth figure"));

    auto* bandwidthRow = new QHBoxLayout;
    bandwidthRow->addWidget(new QLabel(tr("Bandwidth")));
    bandwidthRow->addWidget(m_bandwidthSpin, 1);
    bandwidthRow->addWidget(m_bandwidthResetButton);
    auto* grid = new QGridLayout(this);
    // Two short buttons share a row, the sentence-long one has its own: the dock is narrow, and
    // on a 768-pixel-high screen it shares the height with the Settings dock.
    grid->addWidget(m_largestContextButton, 0, 0);
    grid->addWidget(m_mostGpuLayersButton, 0, 1);
    grid->addWidget(m_bestKvButton, 1, 0, 1, 2);
    grid->addWidget(m_resultLabel, 2, 0, 1, 2);
    grid->addWidget(m_decodeSpeedLabel, 3, 0, 1, 2);
    grid->addLayout(bandwidthRow, 4, 0, 1, 2);
    grid->setRowStretch(5, 1); // extra height goes below, not between the rows
}

void AdvicePanel::adviseLargestContext() {
    ServerSettings settings = m_session->settings();
    const std::vector<ContextFit> fits =
        largestContextPerKvPair(m_session->sizingModel(), settings, m_session->gpus(), m_session->budget(),
                                {{settings.cacheTypeK, settings.cacheTypeV}});
    const ContextFit fit = fits.empty() ? ContextFit{} : fits.front();
    const QString pair =
        tr("K %1 / V %2").arg(ggmlTypeLabel(settings.cacheTypeK), ggmlTypeLabel(settings.cacheTypeV));
    if (!fit.fits) {
        showResult(tr("Does not fit with %1: %2").arg(pair, fitFailureText(fit)), false);
        return;
    }
    settings.contextTokens = fit.contextTokens;
    m_session->setSettings(settings);
    showResult(tr("Largest context with %1: %2 tokens (%3 in all)")
                   .arg(pair)
                   .arg(fit.contextTokens)
                   .arg(formatMiBText(fit.totalBytes)),
               true);
}

QString AdvicePanel::fitFailureText(const ContextFit& fit) {
    const QString overrun =
        tr("%1 needs %2 of %3")
            .arg(QString::fromStdString(fit.overrun.device), formatMiBText(fit.overrun.neededBytes),
                 formatMiBText(fit.overrun.budgetBytes));
    switch (fit.failure) {
    case FitFailure::None:
        break;
    case FitFailure::Refused:
        return QString::fromStdString(fit.refusal.message); // llama.cpp's words
    case FitFailure::OverBudgetAtSmallest:
        return tr("does not fit even at 256 tokens: %1").arg(overrun);
    case FitFailure::OverBudget:
        return tr("even K %1 / V %2 does not fit: %3")
            .arg(ggmlTypeLabel(fit.typeK), ggmlTypeLabel(fit.typeV), overrun);
    case FitFailure::NoPairAccepted:
        return tr("llama-server accepts no K/V types for this model and settings");
    }
    return {};
}

void AdvicePanel::adviseBestKvPair() {
    ServerSettings settings = m_session->settings();
    const ContextFit fit =
        bestKvPairForContext(m_session->sizingModel(), settings, m_session->gpus(), m_session->budget());
    if (!fit.fits) {
        showResult(tr("No K/V types fit this context: %1").arg(fitFailureText(fit)), false);
        return;
    }
    // Seed 003's question, is a smaller cache worth it: the expected decode speed of the
    // chosen pair at a full slot next to that of the pair it replaces (a smaller cache reads
    // fewer bytes per token).
    const GgmlType previousK = settings.cacheTypeK;
    const GgmlType previousV = settings.cacheTypeV;
    const auto speedOf = [this, &settings](GgmlType typeK, GgmlType typeV) -> std::optional<SpeedPrediction> {
        const std::optional<std::uint64_t> bandwidth = m_session->bandwidthBytesPerSecond();
        if (!bandwidth || *bandwidth == 0 || !settings.contextTokens) {
            return std::nullopt;
        }
        return speedWithKvPair(m_session->model().info, settings, typeK, typeV, *settings.contextTokens,
                               m_session->gpus(), *bandwidth, m_session->machine().fp16Tflops,
                               m_speed.efficiency());
    };
    const std::optional<SpeedPrediction> chosenSpeed = speedOf(fit.typeK, fit.typeV);
    const std::optional<SpeedPrediction> previousSpeed =
        previousK != fit.typeK || previousV != fit.typeV ? speedOf(previousK, previousV) : std::nullopt;
    settings.cacheTypeK = fit.typeK;
    settings.cacheTypeV = fit.typeV;
    m_session->setSettings(settings);
    QString text =
        tr("Best K/V types for this context: K %1 / V %2 (%3 in all)")
            .arg(ggmlTypeLabel(fit.typeK), ggmlTypeLabel(fit.typeV), formatMiBText(fit.totalBytes));
    if (chosenSpeed) {
        text += tr("; decode ~%1 t/s expected at a full slot").arg(chosenSpeed->decodeTpsExpected, 0, 'f', 1);
        if (previousSpeed) {
            text += tr(" (K %1 / V %2: ~%3 t/s)")
                        .arg(ggmlTypeLabel(previousK), ggmlTypeLabel(previousV))
                        .arg(previousSpeed->decodeTpsExpected, 0, 'f', 1);
        }
    }
    showResult(text, true);
}

void AdvicePanel::adviseMostGpuLayers() {
    ServerSettings settings = m_session->settings();
    const GpuLayerFit fit =
        mostGpuLayers(m_session->sizingModel(), settings, m_session->gpus(), m_session->budget());
    if (!fit.fits) {
        showResult(tr("Does not fit with any number of GPU layers: the rest of the model, the KV cache and "
                      "the buffers exceed the host memory at these settings"),
                   false);
        return;
    }
    settings.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(fit.gpuLayers));
    m_session->setSettings(settings);
    showResult(
        tr("Most GPU layers that fit: %1 (%2 in all)").arg(fit.gpuLayers).arg(formatMiBText(fit.totalBytes)),
        true);
}

void AdvicePanel::showResult(const QString& text, bool fits) {
    QPalette palette = m_resultLabel->palette();
    palette.setColor(QPalette::WindowText, fits ? this->palette().color(QPalette::WindowText)
                                                : verdictColor(FitVerdict::DoesNotFit));
    m_resultLabel->setPalette(palette);
    m_resultLabel->setText(text);
    m_resultLabel->show();
}

void AdvicePanel::showMachine() {
    const bool hasGpu = !m_session->gpus().empty();
    m_mostGpuLayersButton->setEnabled(hasGpu);
    m_mostGpuLayersButton->setToolTip(hasGpu ? tr("Sets -ngl to the most layers that fit the GPU memory")
                                             : tr("This machine has no GPU: every layer runs on the CPU"));
}

void AdvicePanel::showEstimate() {
    const std::optional<std::uint64_t> bandwidth = m_session->bandwidthBytesPerSecond();
    {
        const QSignalBlocker blocker(m_bandwidthSpin);
        m_bandwidthSpin->setValue(bandwidth ? static_cast<double>(*bandwidth) / kBytesPerGb : 0.0);
    }
    m_bandwidthResetButton->setEnabled(m_session->bandwidthOverride().has_value());
    const Result<MemoryEstimate>& estimate = m_session->estimate();
    if (!estimate.ok()) {
        m_decodeSpeedLabel->setText(tr("Decode speed: — (llama-server would refuse these settings)"));
        return;
    }
    if (!bandwidth || *bandwidth == 0) {
        m_decodeSpeedLabel->setText(tr("Decode speed: enter the memory bandwidth to estimate it"));
        return;
    }
    const std::uint32_t slotTokens = estimate->context.nCtxSeq;
    // The bound and the expected rate (bound x this machine's efficiency, learned from its stored
    // benchmarks when there are any): the same SessionSpeed figures as the memory chart's tooltips.
    const std::optional<SpeedPrediction> full = m_speed.predict();
    const std::optional<SpeedPrediction> half = m_speed.predict(slotTokens / 2);
    if (!full || !half) {
        return;
    }
    m_decodeSpeedLabel->setText(tr("Decode speed ≤ %1 t/s (full %2 slot) · ≤ %3 t/s (half): an upper bound\n"
                                   "expected ~%4 t/s (full) · ~%5 t/s (half): %6")
                                    .arg(full->decodeTpsBound, 0, 'f', 1)
                                    .arg(tokensText(slotTokens))
                                    .arg(half->decodeTpsBound, 0, 'f', 1)
                                    .arg(full->decodeTpsExpected, 0, 'f', 1)
                                    .arg(half->decodeTpsExpected, 0, 'f', 1)
                                    .arg(efficiencySourceText(full->efficiency)));
}

} // namespace llamafit

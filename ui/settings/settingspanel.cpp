// The settings controls and their two-way binding to the session; see settingspanel.h.
#include "ui/settings/settingspanel.h"

#include "core/flags/fitflags.h"
#include "core/model/companionmodels.h"
#include "core/sizing/estimator.h"
#include "core/sizing/fitreplica.h"
#include "ui/chartstyle.h"
#include "ui/settings/extraflags.h"
#include "ui/sizingsession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>

#include <algorithm>
#include <climits>
#include <memory>
#include <vector>

namespace llamafit {

namespace {

constexpr int kMaxSlots = 256;
constexpr int kMaxBatchTokens = 1 << 20;
// Characters besides the icon's room: "iq4_nl", the longest K/V type name, fits in both (an item
// has the icon only when refused).
constexpr int kCacheTypeContentsLength = 4;
// The tooltip a control shows when valid, and the flag's own tooltip (the first can be a
// "no GPU" note instead).
const char* const kBaseToolTip = "llamafitBaseToolTip";
const char* const kFlagToolTip = "llamafitFlagToolTip";

QString fromStd(const std::string& text) {
    return QString::fromStdString(text);
}

QString joinedWords(const std::vector<std::string>& items) {
    QStringList list;
    for (const std::string& item : items) {
        list << fromStd(item);
    }
    return list.join(QStringLiteral(", "));
}

void setToolTipOf(QWidget* widget, const QString& toolTip) {
    widget->setToolTip(toolTip);
    widget->setProperty(kBaseToolTip, toolTip);
    widget->setProperty(kFlagToolTip, toolTip);
}

QSpinBox* makeSpin(const QString& name, int minimum, int maximum, const QString& toolTip) {
    auto* spin = new QSpinBox;
    spin->setObjectName(name);
    spin->setRange(minimum, maximum);
    spin->setKeyboardTracking(false); // one change when typing ends, not one per digit
    setToolTipOf(spin, toolTip);
    return spin;
}

QComboBox* makeCombo(const QString& name, const std::vector<std::pair<QString, int>>& items,
                     const QString& toolTip) {
    auto* combo = new QComboBox;
    combo->setObjectName(name);
    for (const auto& [text, value] : items) {
        combo->addItem(text, value);
    }
    setToolTipOf(combo, toolTip);
    return combo;
}

void selectData(QComboBox* combo, int value) {
    combo->setCurrentIndex(std::max(combo->findData(value), 0));
}

int currentData(const QComboBox* combo) {
    return combo->currentData().toInt();
}

// Seed 003's advice on KV quantisation (after KIVI, arXiv:2402.02750), and the bytes llama.cpp
// really stores (ggml/src/ggml-common.h block_q8_0: an f16 scale + 32 int8, 34 bytes).
QString kvTypeNoteText() {
    const GgmlTypeTraits& q8 = ggmlTypeTraits(GgmlType::Q8_0);
    const GgmlTypeTraits& q4 = ggmlTypeTraits(GgmlType::Q4_0);
    const auto perValue = [](const GgmlTypeTraits& t) {
        return QString::number(static_cast<double>(t.bytesPerBlock) / t.blockSize, 'g', 6);
    };
    return SettingsPanel::tr("q8_0 KV is close to f16 for most tasks. q4_0 suits short Q&A, summaries, "
                             "classification and short code completion, but degrades maths, exact "
                             "numbers and long-range lookups (needle in a haystack). K and V differ: "
                             "keys vary per channel, values per token, so keep K at least as precise as V.") +
           QStringLiteral("\n") +
           SettingsPanel::tr("llama.cpp stores q8_0 as %1 bytes per %2 values (%3 bytes/value) and q4_0 as "
                             "%4 bytes per %5 (%6): not ½ and ¼ of f16 as the seed's rule of thumb says.")
               .arg(q8.bytesPerBlock)
               .arg(q8.blockSize)
               .arg(perValue(q8))
               .arg(q4.bytesPerBlock)
               .arg(q4.blockSize)
               .arg(perValue(q4));
}

} // namespace

SettingsPanel::SettingsPanel(SizingSession* session, QWidget* parent) : QWidget(parent), m_session(session) {
    buildControls();
    connectControls();
    showModel();
    showMachine();
    showSettings();
    showValidity();
    connect(m_session, &SizingSession::modelChanged, this, &SettingsPanel::showModel);
    connect(m_session, &SizingSession::machineChanged, this, &SettingsPanel::showMachine);
    connect(m_session, &SizingSession::settingsChanged, this, &SettingsPanel::showSettings);
    connect(m_session, &SizingSession::estimateChanged, this, &SettingsPanel::showValidity);
    connect(m_session, &SizingSession::estimateChanged, this, &SettingsPanel::showFitContext);
    connect(m_session, &SizingSession::extraArgsChanged, this, &SettingsPanel::showFitContext);
    showFitContext();
}

void SettingsPanel::buildControls() {
    m_contextSlider = new QSlider(Qt::Horizontal);
    m_contextSlider->setObjectName(QStringLiteral("contextSlider"));
    setToolTipOf(m_contextSlider, tr("-c / --ctx-size: context tokens, all slots together (llama.cpp pads "
                                     "it to a multiple of 256)"));
    m_contextSpin = makeSpin(QStringLiteral("contextSpin"), ContextStops::kFirstStop, INT_MAX,
                             tr("-c / --ctx-size: the exact context in tokens"));
    m_contextSpin->setSingleStep(256);
    m_slotsSpin = makeSpin(QStringLiteral("slotsSpin"), 0, kMaxSlots,
                           tr("-np / --parallel: server slots (concurrent requests); auto = 4 slots "
                              "sharing one unified KV cache"));
    m_slotsSpin->setSpecialValueText(tr("auto (4, unified)"));

    std::vector<std::pair<QString, int>> cacheTypes;
    for (GgmlType type : allowedCacheTypes()) {
        cacheTypes.emplace_back(ggmlTypeLabel(type), static_cast<int>(type));
    }
    m_cacheTypeKCombo = makeCombo(QStringLiteral("cacheTypeKCombo"), cacheTypes,
                                  tr("-ctk / --cache-type-k: the K cache type"));
    m_cacheTypeVCombo = makeCombo(QStringLiteral("cacheTypeVCombo"), cacheTypes,
                                  tr("-ctv / --cache-type-v: the V cache type (quantized types need flash "
                                     "attention)"));
    m_gpuLayersSpin =
        makeSpin(QStringLiteral("gpuLayersSpin"), 0, 1,
                 tr("-ngl / --n-gpu-layers: layers on the GPU, the output layer counted first"));
    m_gpuLayersAllCheck = new QCheckBox(tr("all"));
    m_gpuLayersAllCheck->setObjectName(QStringLiteral("gpuLayersAllCheck"));
    setToolTipOf(m_gpuLayersAllCheck, tr("-ngl all: every layer and the output layer on the GPU"));
    m_batchSpin = makeSpin(QStringLiteral("batchSpin"), 1, kMaxBatchTokens,
                           tr("-b / --batch-size: logical batch in tokens"));
    m_ubatchSpin = makeSpin(QStringLiteral("ubatchSpin"), 1, kMaxBatchTokens,
                            tr("-ub / --ubatch-size: physical batch in tokens; the compute buffer grows "
                               "with it"));
    m_flashAttentionCombo = makeCombo(QStringLiteral("flashAttentionCombo"),
                                      {{tr("auto"), static_cast<int>(FlashAttention::Auto)},
                                       {tr("on"), static_cast<int>(FlashAttention::On)},
                                       {tr("off"), static_cast<int>(FlashAttention::Off)}},
                                      tr("-fa / --flash-attn on|off|auto"));
    m_kvUnifiedCombo =
        makeCombo(QStringLiteral("kvUnifiedCombo"), {{tr("default"), 0}, {tr("on"), 1}, {tr("off"), 2}},
                  tr("-kvu / --kv-unified, -no-kvu / --no-kv-unified: one KV buffer shared by "
                     "all slots; default = unified only with -np auto"));
    m_swaFullCheck = new QCheckBox(tr("full-size SWA cache"));
    m_swaFullCheck->setObjectName(QStringLiteral("swaFullCheck"));
    setToolTipOf(m_swaFullCheck, tr("--swa-full: sliding-window layers keep the whole context"));
    m_mtpCheck = new QCheckBox(tr("MTP drafting (NextN block)"));
    m_mtpCheck->setObjectName(QStringLiteral("mtpDraftCheck"));
    setToolTipOf(m_mtpCheck,
                 tr("--spec-type draft-mtp: speculative decoding with the model's own NextN (MTP) block. "
                    "llama-server then loads the block's weights, builds a second, draft context (its KV "
                    "cache, logits and compute buffer) and keeps --spec-draft-n-max more recurrent-state "
                    "rows per slot; without it the block's weights are skipped. Shown for files with a "
                    "NextN block."));
    m_loadModeCombo = makeCombo(QStringLiteral("loadModeCombo"),
                                {{tr("auto"), static_cast<int>(LoadMode::Auto)},
                                 {tr("mmap"), static_cast<int>(LoadMode::Mmap)},
                                 {tr("none (copy)"), static_cast<int>(LoadMode::None)}},
                                tr("-lm / --load-mode auto|mmap|none (none replaces the old --no-mmap)"));
    m_extraFlagsEdit = new QLineEdit;
    m_extraFlagsEdit->setObjectName(QStringLiteral("extraFlagsEdit"));
    m_extraFlagsEdit->setPlaceholderText(tr("e.g. -t 8 --alias local -ot exps=CPU"));
    setToolTipOf(m_extraFlagsEdit, tr("Other llama-server flags, quoted as in a shell. Flags that change "
                                      "memory (-ot, -ts, -cmoe, ...) are applied to the estimate; the rest "
                                      "are passed to the launch."));
    m_extraFlagsNote = new QLabel;
    m_extraFlagsNote->setObjectName(QStringLiteral("extraFlagsNote"));
    m_extraFlagsNote->setWordWrap(true);
    m_extraFlagsNote->hide(); // shown with a note: an empty row costs a small screen its last control
    m_errorLabel = new QLabel;
    m_errorLabel->setObjectName(QStringLiteral("settingsErrorLabel"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette errorPalette = m_errorLabel->palette();
    errorPalette.setColor(QPalette::WindowText, verdictColor(FitVerdict::DoesNotFit));
    m_errorLabel->setPalette(errorPalette);
    // One short line under the K/V types; the whole note on hover (there and on both combos), so
    // it does not push the GPU-layer and batch controls out of a 768-pixel-high screen.
    m_kvTypeNote = new QLabel(tr("q8_0 ≈ f16 for most tasks; q4_0 for short ones (hover for why)"));
    m_kvTypeNote->setObjectName(QStringLiteral("kvTypeNote"));
    m_kvTypeNote->setWordWrap(true);
    m_kvTypeNote->setForegroundRole(QPalette::PlaceholderText);
    m_kvTypeNote->setToolTip(kvTypeNoteText());
    for (QComboBox* combo : {m_cacheTypeKCombo, m_cacheTypeVCombo}) {
        // Sized for the type names, not for the longest item: an item the model cannot take
        // carries llama.cpp's reason (and a warning icon), which would widen the dock past a small
        // screen. The popup still shows every item whole.
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(kCacheTypeContentsLength);
        combo->setToolTip(combo->toolTip().isEmpty()
                              ? kvTypeNoteText()
                              : combo->toolTip() + QStringLiteral("\n\n") + kvTypeNoteText());
    }

    m_fitContextLabel = new QLabel;
    m_fitContextLabel->setObjectName(QStringLiteral("fitContextLabel"));
    m_fitContextLabel->setWordWrap(true);
    m_fitContextLabel->setForegroundRole(QPalette::PlaceholderText);

    auto* contextRow = new QHBoxLayout;
    contextRow->addWidget(m_contextSlider, 1);
    contextRow->addWidget(m_contextSpin);
    auto* gpuRow = new QHBoxLayout;
    gpuRow->addWidget(m_gpuLayersSpin, 1);
    gpuRow->addWidget(m_gpuLayersAllCheck);
    // Pairs share a row (K and V, batch and micro-batch): on a 768-pixel-high screen the Settings
    // and Advice docks have about 620 pixels between them, and every row must show.
    auto* cacheTypeRow = new QHBoxLayout;
    cacheTypeRow->addWidget(m_cacheTypeKCombo, 1);
    cacheTypeRow->addWidget(new QLabel(QStringLiteral("/")));
    cacheTypeRow->addWidget(m_cacheTypeVCombo, 1);
    auto* batchRow = new QHBoxLayout;
    batchRow->addWidget(m_batchSpin, 1);
    batchRow->addWidget(new QLabel(QStringLiteral("/")));
    batchRow->addWidget(m_ubatchSpin, 1);
    auto* form = new QFormLayout(this);
    form->addRow(tr("Context"), contextRow);
    form->addRow(QString(), m_fitContextLabel);
    form->addRow(tr("Slots"), m_slotsSpin);
    form->addRow(tr("K / V cache"), cacheTypeRow);
    form->addRow(m_kvTypeNote);
    form->addRow(tr("GPU layers"), gpuRow);
    form->addRow(tr("Batch / ubatch"), batchRow);
    form->addRow(tr("Flash attention"), m_flashAttentionCombo);
    form->addRow(tr("Unified KV"), m_kvUnifiedCombo);
    form->addRow(QString(), m_swaFullCheck);
    form->addRow(QString(), m_mtpCheck);
    form->addRow(tr("Load mode"), m_loadModeCombo);
    form->addRow(tr("Extra flags"), m_extraFlagsEdit);
    form->addRow(m_extraFlagsNote);
    form->addRow(m_errorLabel);

    using enum SettingsControl;
    m_controls = {{Context, m_contextSpin},        {Slots, m_slotsSpin},
                  {CacheTypeK, m_cacheTypeKCombo}, {CacheTypeV, m_cacheTypeVCombo},
                  {GpuLayers, m_gpuLayersSpin},    {Batch, m_batchSpin},
                  {Ubatch, m_ubatchSpin},          {FlashAttention, m_flashAttentionCombo},
                  {KvUnified, m_kvUnifiedCombo},   {SwaFull, m_swaFullCheck},
                  {LoadMode, m_loadModeCombo},     {ExtraFlags, m_extraFlagsEdit}};
}

void SettingsPanel::connectControls() {
    // Each control edits one field of the session's current settings.
    auto edit = [this](auto change) {
        ServerSettings settings = m_session->settings();
        change(settings);
        write(settings);
    };
    connect(m_contextSlider, &QSlider::valueChanged, this, [this, edit](int index) {
        edit([&](ServerSettings& s) { s.contextTokens = m_stops.tokensAt(index); });
    });
    connect(m_contextSpin, &QSpinBox::valueChanged, this, [edit](int tokens) {
        edit([&](ServerSettings& s) { s.contextTokens = static_cast<std::uint32_t>(tokens); });
    });
    connect(m_slotsSpin, &QSpinBox::valueChanged, this, [edit](int slotCount) {
        edit([&](ServerSettings& s) {
            s.parallelSlots = slotCount == 0 ? std::nullopt : std::optional<std::uint32_t>(slotCount);
        });
    });
    connect(m_cacheTypeKCombo, &QComboBox::currentIndexChanged, this, [this, edit] {
        edit(
            [&](ServerSettings& s) { s.cacheTypeK = static_cast<GgmlType>(currentData(m_cacheTypeKCombo)); });
    });
    connect(m_cacheTypeVCombo, &QComboBox::currentIndexChanged, this, [this, edit] {
        edit(
            [&](ServerSettings& s) { s.cacheTypeV = static_cast<GgmlType>(currentData(m_cacheTypeVCombo)); });
    });
    connect(m_gpuLayersSpin, &QSpinBox::valueChanged, this, [edit](int layers) {
        edit([&](ServerSettings& s) { s.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(layers)); });
    });
    connect(m_gpuLayersAllCheck, &QCheckBox::toggled, this, [this, edit](bool all) {
        // Checked is -ngl all; unchecked, the spin box's count applies.
        edit([&](ServerSettings& s) {
            s.gpuLayers = all ? GpuLayers::all()
                              : GpuLayers::count(static_cast<std::uint32_t>(m_gpuLayersSpin->value()));
        });
    });
    connect(m_batchSpin, &QSpinBox::valueChanged, this, [edit](int tokens) {
        edit([&](ServerSettings& s) { s.batchTokens = static_cast<std::uint32_t>(tokens); });
    });
    connect(m_ubatchSpin, &QSpinBox::valueChanged, this, [edit](int tokens) {
        edit([&](ServerSettings& s) { s.ubatchTokens = static_cast<std::uint32_t>(tokens); });
    });
    connect(m_flashAttentionCombo, &QComboBox::currentIndexChanged, this, [this, edit] {
        edit([&](ServerSettings& s) {
            s.flashAttention = static_cast<FlashAttention>(currentData(m_flashAttentionCombo));
        });
    });
    connect(m_kvUnifiedCombo, &QComboBox::currentIndexChanged, this, [this, edit] {
        const int choice = currentData(m_kvUnifiedCombo);
        edit([&](ServerSettings& s) {
            s.kvUnified = choice == 0 ? std::nullopt : std::optional<bool>(choice == 1);
        });
    });
    connect(m_swaFullCheck, &QCheckBox::toggled, this,
            [edit](bool full) { edit([&](ServerSettings& s) { s.swaFull = full; }); });
    connect(m_mtpCheck, &QCheckBox::toggled, this, [edit](bool mtp) {
        // The other --spec-type values (given as extra flags) stay as they are.
        edit([&](ServerSettings& s) {
            std::vector<SpeculativeType>& types = s.speculative.types;
            std::erase(types, SpeculativeType::DraftMtp);
            if (mtp) {
                types.push_back(SpeculativeType::DraftMtp);
            }
        });
    });
    connect(m_loadModeCombo, &QComboBox::currentIndexChanged, this, [this, edit] {
        edit([&](ServerSettings& s) { s.loadMode = static_cast<LoadMode>(currentData(m_loadModeCombo)); });
    });
    connect(m_extraFlagsEdit, &QLineEdit::editingFinished, this, &SettingsPanel::applyExtraFlags);
}

void SettingsPanel::write(ServerSettings settings) {
    if (!settings.contextTokens || *settings.contextTokens == 0) {
        settings.contextTokens = static_cast<std::uint32_t>(m_contextSpin->value());
    }
    m_session->setSettings(settings);
}

void SettingsPanel::applyExtraFlags() {
    const Result<std::vector<std::string>> words = splitShellWords(m_extraFlagsEdit->text().toStdString());
    ServerSettings base = m_session->settings();
    if (!base.contextTokens || *base.contextTokens == 0) {
        base.contextTokens = static_cast<std::uint32_t>(m_contextSpin->value());
    }
    const Result<ExtraFlags> flags =
        words ? llamafit::applyExtraFlags(base, *words) : Result<ExtraFlags>(words.error());
    if (!flags) {
        // The text stays in the field for the user to fix; nothing is applied.
        m_extraFlagsError = fromStd(flags.error().message);
        m_extraFlagsNote->setText(tr("Not applied: %1").arg(m_extraFlagsError));
        m_extraFlagsNote->show();
        showValidity();
        return;
    }
    // The files these flags load (--lora, -md, --mmproj) must be readable before the flags apply;
    // the session then sizes them (SizingSession reads their headers).
    if (Result<CompanionModels> companions = loadCompanionModels(flags->settings); !companions) {
        m_extraFlagsError = fromStd(companions.error().message);
        m_extraFlagsNote->setText(tr("Not applied: %1").arg(m_extraFlagsError));
        m_extraFlagsNote->show();
        showValidity();
        return;
    }
    m_extraFlagsError.clear();
    QStringList lines;
    if (!flags->memoryFlags.empty()) {
        lines << tr("Applied to the estimate: %1").arg(joinedWords(flags->memoryFlags));
    }
    if (!flags->passThrough.empty()) {
        QStringList words;
        for (const std::string& word : flags->passThrough) {
            words << fromStd(word);
        }
        lines << tr("Passed to llama-server: %1").arg(words.join(QLatin1Char(' ')));
    }
    if (!flags->unmodelledFlags.empty()) {
        lines << tr("Not in the estimate: %1").arg(joinedWords(flags->unmodelledFlags));
    }
    for (const std::string& note : flags->notes) {
        lines << fromStd(note);
    }
    m_extraFlagsNote->setText(lines.join(QLatin1Char('\n')));
    m_extraFlagsNote->setVisible(!lines.isEmpty());
    write(flags->settings);
    m_session->setExtraArgs(flags->passThrough);
    showValidity();
}

void SettingsPanel::showModel() {
    const ModelInfo& model = m_session->model().info;
    m_stops = ContextStops(model.trainingContext);
    const QSignalBlocker sliderBlocker(m_contextSlider);
    const QSignalBlocker spinBlocker(m_contextSpin);
    const QSignalBlocker layersBlocker(m_gpuLayersSpin);
    m_contextSlider->setRange(0, m_stops.count() - 1);
    m_contextSlider->setPageStep(4); // one power of two
    const int maximum = static_cast<int>(std::min<std::uint32_t>(m_stops.maximum(), INT_MAX));
    m_contextSpin->setRange(std::min(static_cast<int>(ContextStops::kFirstStop), maximum), maximum);
    // -ngl counts the output layer as one more layer (llama.cpp src/llama-model.cpp i_gpu_start).
    m_gpuLayersSpin->setRange(0, static_cast<int>(model.trunkLayerCount()) + 1);
    // Only a file with NextN blocks can draft with them (llama-server refuses draft-mtp otherwise).
    m_mtpCheck->setVisible(model.nextnLayerCount > 0);
}

void SettingsPanel::showMachine() {
    const bool hasGpu = !m_session->gpus().empty();
    for (QWidget* control :
         {static_cast<QWidget*>(m_gpuLayersSpin), static_cast<QWidget*>(m_gpuLayersAllCheck)}) {
        control->setEnabled(hasGpu);
        const QString toolTip = hasGpu ? control->property(kFlagToolTip).toString()
                                       : tr("This machine has no GPU: every layer runs on the CPU and -ngl "
                                            "has no effect.");
        control->setProperty(kBaseToolTip, toolTip);
        control->setToolTip(toolTip);
    }
}

void SettingsPanel::showSettings() {
    const ServerSettings& settings = m_session->settings();
    const std::vector<QWidget*> controls = {
        m_contextSlider,     m_contextSpin,  m_slotsSpin,  m_cacheTypeKCombo,     m_cacheTypeVCombo,
        m_gpuLayersSpin,     m_batchSpin,    m_ubatchSpin, m_flashAttentionCombo, m_kvUnifiedCombo,
        m_gpuLayersAllCheck, m_swaFullCheck, m_mtpCheck,   m_loadModeCombo};
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QWidget* control : controls) {
        blockers.push_back(std::make_unique<QSignalBlocker>(control));
    }
    const std::uint32_t context =
        settings.contextTokens.value_or(0) > 0 ? *settings.contextTokens : m_stops.maximum();
    const int contextValue = static_cast<int>(std::min<std::uint32_t>(context, INT_MAX));
    m_contextSpin->setMaximum(std::max(m_contextSpin->maximum(), contextValue));
    m_contextSpin->setValue(contextValue);
    m_contextSlider->setValue(m_stops.nearestIndex(context));
    m_slotsSpin->setValue(
        static_cast<int>(std::min<std::uint32_t>(settings.parallelSlots.value_or(0), kMaxSlots)));
    selectData(m_cacheTypeKCombo, static_cast<int>(settings.cacheTypeK));
    selectData(m_cacheTypeVCombo, static_cast<int>(settings.cacheTypeV));
    // -ngl auto (or not passed) and -ngl all both put every layer on the GPUs.
    const bool allLayers = settings.gpuLayers.value_or(GpuLayers::automatic()).everyLayer();
    m_gpuLayersAllCheck->setChecked(allLayers);
    m_gpuLayersSpin->setValue(
        allLayers ? m_gpuLayersSpin->maximum()
                  : static_cast<int>(std::min<std::uint32_t>(settings.gpuLayers->layerCount(), INT32_MAX)));
    m_gpuLayersSpin->setReadOnly(allLayers);
    m_batchSpin->setValue(static_cast<int>(std::min<std::uint32_t>(settings.batchTokens, kMaxBatchTokens)));
    m_ubatchSpin->setValue(static_cast<int>(std::min<std::uint32_t>(settings.ubatchTokens, kMaxBatchTokens)));
    selectData(m_flashAttentionCombo, static_cast<int>(settings.flashAttention));
    selectData(m_kvUnifiedCombo, settings.kvUnified ? (*settings.kvUnified ? 1 : 2) : 0);
    m_swaFullCheck->setChecked(settings.swaFull);
    m_mtpCheck->setChecked(settings.speculative.uses(SpeculativeType::DraftMtp));
    selectData(m_loadModeCombo, static_cast<int>(settings.loadMode));
}

void SettingsPanel::showValidity() {
    for (const auto& [control, widget] : m_controls) {
        markInvalid(widget, QString());
    }
    const Result<MemoryEstimate>& estimate = m_session->estimate();
    if (estimate.ok()) {
        m_errorLabel->clear();
        m_errorLabel->hide();
    } else {
        const QString reason = fromStd(estimate.error().message);
        m_errorLabel->setText(tr("llama-server would refuse these settings: %1").arg(reason));
        m_errorLabel->show();
        for (SettingsControl control : offendingControls(estimate.error())) {
            markInvalid(m_controls.at(control), reason);
        }
    }
    if (!m_extraFlagsError.isEmpty()) {
        markInvalid(m_extraFlagsEdit, m_extraFlagsError);
    }
    markCacheTypeItems(m_cacheTypeKCombo, CacheSide::K);
    markCacheTypeItems(m_cacheTypeVCombo, CacheSide::V);
}

void SettingsPanel::markCacheTypeItems(QComboBox* combo, CacheSide side) {
    const QIcon warning = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    for (int i = 0; i < combo->count(); ++i) {
        const auto type = static_cast<GgmlType>(combo->itemData(i).toInt());
        const std::optional<Error> refusal =
            cacheTypeRefusal(m_session->model().info, m_session->settings(), side, type);
        const QString reason = refusal ? fromStd(refusal->message) : QString();
        const QString text = refusal ? tr("%1 — %2").arg(ggmlTypeLabel(type), reason) : ggmlTypeLabel(type);
        if (combo->itemText(i) != text) { // a slider drag re-checks every step; repaint only on change
            combo->setItemText(i, text);
            combo->setItemData(i, refusal ? QVariant(reason) : QVariant(), Qt::ToolTipRole);
            combo->setItemIcon(i, refusal ? warning : QIcon());
        }
    }
}

void SettingsPanel::markInvalid(QWidget* control, const QString& reason) {
    const bool invalid = !reason.isEmpty();
    if (!invalid && !control->property("invalid").toBool()) {
        return; // already shown as valid
    }
    control->setProperty("invalid", invalid);
    // A frame in the verdict colour (chartstyle.h), readable on light and dark palettes alike.
    control->setStyleSheet(invalid ? QStringLiteral("%1 { border: 2px solid %2; }")
                                         .arg(QString::fromLatin1(control->metaObject()->className()),
                                              verdictColor(FitVerdict::DoesNotFit).name())
                                   : QString());
    const QString base = control->property(kBaseToolTip).toString();
    control->setToolTip(invalid ? base + QStringLiteral("\n") + tr("Refused: %1").arg(reason) : base);
}

void SettingsPanel::showFitContext() {
    // The panel always passes -c; this says what the user would get without it: llama-server
    // runs its own fit (-fit on by default) on the same flags, the machine's GPUs and host memory.
    FitRequest request;
    request.settings = m_session->settings();
    request.settings.contextTokens.reset();
    request.gpus = m_session->gpus();
    const Machine& machine = m_session->machine();
    if (machine.hostPoolIndex < machine.pools.size()) {
        request.hostTotalBytes = machine.pools[machine.hostPoolIndex].capacityBytes;
    }
    if (Result<ParsedServerArgs> extra = parseServerArgs(m_session->extraArgs())) {
        if (Result<FitParams> params = readFitParams(*extra)) {
            request.params = *params;
        }
    }
    const Result<FitOutcome> outcome = replicateLlamaFit(m_session->sizingModel(), request);
    if (!outcome) {
        m_fitContextLabel->setText(tr("Left unset, llama-server would refuse these settings."));
        return;
    }
    const QString context = QString::number(outcome->contextTokens);
    QString text;
    switch (outcome->status) {
    case FitStatus::Disabled:
        text = tr("Left unset, llama-server takes the training context, -c %1 (-fit off).").arg(context);
        break;
    case FitStatus::Unchanged:
    case FitStatus::Fitted:
        text = tr("Left unset, llama-server will pick -c %1.").arg(context);
        break;
    case FitStatus::Failed:
        text = tr("Left unset, llama-server's fit gives up (%1) and runs with -c %2.")
                   .arg(QString::fromStdString(outcome->failure), context);
        break;
    }
    if (outcome->status == FitStatus::Fitted && outcome->gpuLayers >= 0) {
        text += QLatin1Char(' ') + tr("Its fit also sets -ngl %1.").arg(outcome->gpuLayers);
    }
    m_fitContextLabel->setText(text);
    m_fitContextLabel->setToolTip(QString::fromStdString(fitArgumentsText(*outcome)));
}

} // namespace llamafit

// SettingsPanel: every control, moved through its widget, writes exactly its field to the session,
// whose estimate is then exactly the sizing core's; refused settings are shown at once with
// llama.cpp's reason; changes made elsewhere update the controls without writing back.
#include "ui/settings/settingspanel.h"

#include "core/machine/memorypools.h"
#include "core/model/loraadapter.h"
#include "core/sizing/estimator.h"
#include "core/sizing/fitreplica.h"
#include "tests/gui/settings/settingstestmodels.h"
#include "ui/sizingsession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

class SettingsPanelTest : public ::testing::Test {
  protected:
    explicit SettingsPanelTest(std::string_view machineId = defaultMachineId())
        : m_session(test::builtinMachine(machineId)), m_panel(&m_session) {}

    template <typename T> T* control(const char* name) {
        T* widget = m_panel.findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(widget, nullptr) << name;
        return widget;
    }

    // What the panel writes on any change: the defaults with -c at the spin box (the panel
    // always passes -c; it shows the training context until the user picks one).
    ServerSettings panelDefaults() const {
        ServerSettings settings;
        settings.contextTokens = static_cast<std::uint32_t>(m_session.model().info.trainingContext);
        return settings;
    }

    // The session holds exactly `expected` and the sizing core's estimate for it.
    void expectSession(const ServerSettings& expected) {
        EXPECT_EQ(m_session.settings(), expected);
        const Result<MemoryEstimate> core =
            estimateMemory(m_session.model().info, expected, m_session.gpus());
        ASSERT_EQ(m_session.estimate().ok(), core.ok());
        if (core.ok()) {
            EXPECT_EQ(*m_session.estimate(), *core);
        } else {
            EXPECT_EQ(m_session.estimate().error(), core.error());
        }
    }

    void selectType(QComboBox* combo, GgmlType type) {
        const int index = combo->findData(static_cast<int>(type));
        ASSERT_GE(index, 0);
        combo->setCurrentIndex(index);
    }

    SizingSession m_session;
    SettingsPanel m_panel;
};

class SettingsPanelGpuTest : public SettingsPanelTest {
  protected:
    SettingsPanelGpuTest() : SettingsPanelTest("rtx-4060-8gb") {}
};

TEST_F(SettingsPanelTest, StartsOnTheSessionsSettings) {
    const std::uint64_t training = m_session.model().info.trainingContext;
    EXPECT_EQ(control<QSpinBox>("contextSpin")->value(), static_cast<int>(training));
    EXPECT_EQ(control<QSpinBox>("contextSpin")->maximum(), static_cast<int>(training));
    EXPECT_EQ(control<QSpinBox>("contextSpin")->singleStep(), 256);
    EXPECT_EQ(control<QSlider>("contextSlider")->maximum(), m_panel.contextStops().count() - 1);
    EXPECT_EQ(control<QSlider>("contextSlider")->value(), m_panel.contextStops().count() - 1);
    EXPECT_EQ(control<QSpinBox>("slotsSpin")->text(), QStringLiteral("auto (4, unified)"));
    EXPECT_EQ(control<QComboBox>("cacheTypeKCombo")->currentText(), QStringLiteral("f16"));
    EXPECT_EQ(control<QComboBox>("cacheTypeKCombo")->count(), static_cast<int>(allowedCacheTypes().size()));
    EXPECT_TRUE(control<QCheckBox>("gpuLayersAllCheck")->isChecked());
    EXPECT_EQ(control<QSpinBox>("batchSpin")->value(), 2048);
    EXPECT_EQ(control<QSpinBox>("ubatchSpin")->value(), 512);
    EXPECT_FALSE(control<QLabel>("settingsErrorLabel")->isVisibleTo(&m_panel));
    EXPECT_EQ(m_session.settings(), ServerSettings{}); // nothing written until the user acts
}

TEST_F(SettingsPanelTest, TheSliderSetsTheContextToAStop) {
    auto* slider = control<QSlider>("contextSlider");
    const int index = m_panel.contextStops().nearestIndex(65536);
    ASSERT_EQ(m_panel.contextStops().tokensAt(index), 65536u);
    slider->setValue(index);
    ServerSettings expected = panelDefaults();
    expected.contextTokens = 65536;
    expectSession(expected);
    EXPECT_EQ(control<QSpinBox>("contextSpin")->value(), 65536);
}

TEST_F(SettingsPanelTest, TheSpinBoxSetsTheExactContext) {
    control<QSpinBox>("contextSpin")->setValue(40000);
    ServerSettings expected = panelDefaults();
    expected.contextTokens = 40000;
    expectSession(expected);
    EXPECT_EQ(control<QSlider>("contextSlider")->value(), m_panel.contextStops().nearestIndex(40000));
}

TEST_F(SettingsPanelTest, SlotsSetParallelAndZeroIsAuto) {
    auto* slotsSpin = control<QSpinBox>("slotsSpin");
    slotsSpin->setValue(2);
    ServerSettings expected = panelDefaults();
    expected.parallelSlots = 2;
    expectSession(expected);
    slotsSpin->setValue(0);
    expected.parallelSlots.reset();
    expectSession(expected);
}

TEST_F(SettingsPanelTest, KAndVTypesAreSetSeparately) {
    selectType(control<QComboBox>("cacheTypeKCombo"), GgmlType::Q8_0);
    ServerSettings expected = panelDefaults();
    expected.cacheTypeK = GgmlType::Q8_0;
    expectSession(expected);
    selectType(control<QComboBox>("cacheTypeVCombo"), GgmlType::Q4_0);
    expected.cacheTypeV = GgmlType::Q4_0;
    expectSession(expected);
}

TEST_F(SettingsPanelTest, BatchAndUbatch) {
    control<QSpinBox>("batchSpin")->setValue(1024);
    ServerSettings expected = panelDefaults();
    expected.batchTokens = 1024;
    expectSession(expected);
    control<QSpinBox>("ubatchSpin")->setValue(256);
    expected.ubatchTokens = 256;
    expectSession(expected);
}

TEST_F(SettingsPanelTest, FlashAttentionUnifiedKvSwaFullAndLoadMode) {
    ServerSettings expected = panelDefaults();
    auto* flash = control<QComboBox>("flashAttentionCombo");
    flash->setCurrentIndex(flash->findData(static_cast<int>(FlashAttention::On)));
    expected.flashAttention = FlashAttention::On;
    expectSession(expected);

    auto* unified = control<QComboBox>("kvUnifiedCombo");
    unified->setCurrentIndex(2); // off
    expected.kvUnified = false;
    expectSession(expected);
    unified->setCurrentIndex(1); // on
    expected.kvUnified = true;
    expectSession(expected);
    unified->setCurrentIndex(0); // default
    expected.kvUnified.reset();
    expectSession(expected);

    control<QCheckBox>("swaFullCheck")->setChecked(true);
    expected.swaFull = true;
    expectSession(expected);

    auto* loadMode = control<QComboBox>("loadModeCombo");
    loadMode->setCurrentIndex(loadMode->findData(static_cast<int>(LoadMode::None)));
    expected.loadMode = LoadMode::None;
    expectSession(expected);
}

TEST_F(SettingsPanelGpuTest, GpuLayersCountTheOutputLayerAndAllIsMinusTwo) {
    auto* layers = control<QSpinBox>("gpuLayersSpin");
    auto* all = control<QCheckBox>("gpuLayersAllCheck");
    ASSERT_FALSE(m_session.gpus().empty());
    EXPECT_TRUE(layers->isEnabled());
    EXPECT_EQ(layers->maximum(), static_cast<int>(m_session.model().info.trunkLayerCount()) + 1);
    layers->setValue(10);
    ServerSettings expected = panelDefaults();
    expected.gpuLayers = GpuLayers::count(10);
    expectSession(expected);
    EXPECT_FALSE(all->isChecked());
    EXPECT_EQ(m_session.estimate()->gpuLayers, 10u);
    all->setChecked(true);
    expected.gpuLayers = GpuLayers::all();
    expectSession(expected);
    EXPECT_EQ(m_session.estimate()->gpuLayers, m_session.model().info.trunkLayerCount() + 1);
    all->setChecked(false);
    expected.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(layers->maximum()));
    expectSession(expected);
}

TEST_F(SettingsPanelTest, GpuLayersAreOffWithoutAGpu) {
    m_session.setMachine(test::builtinMachine("cpu-only"));
    ASSERT_TRUE(m_session.gpus().empty());
    EXPECT_FALSE(control<QSpinBox>("gpuLayersSpin")->isEnabled());
    EXPECT_FALSE(control<QCheckBox>("gpuLayersAllCheck")->isEnabled());
    EXPECT_TRUE(control<QSpinBox>("gpuLayersSpin")->toolTip().contains(QStringLiteral("no GPU")));
}

TEST_F(SettingsPanelTest, EveryControlNamesItsFlag) {
    const std::vector<std::pair<const char*, const char*>> flags = {
        {"contextSlider", "-c"},       {"contextSpin", "--ctx-size"},
        {"slotsSpin", "-np"},          {"cacheTypeKCombo", "-ctk"},
        {"cacheTypeVCombo", "-ctv"},   {"gpuLayersSpin", "-ngl"},
        {"gpuLayersAllCheck", "-ngl"}, {"batchSpin", "-b"},
        {"ubatchSpin", "-ub"},         {"flashAttentionCombo", "-fa"},
        {"kvUnifiedCombo", "-kvu"},    {"swaFullCheck", "--swa-full"},
        {"loadModeCombo", "-lm"},      {"extraFlagsEdit", "llama-server"}};
    for (const auto& [name, flag] : flags) {
        EXPECT_TRUE(control<QWidget>(name)->toolTip().contains(QString::fromLatin1(flag))) << name;
    }
}

TEST_F(SettingsPanelTest, ExtraFlagsApplyMemoryFlagsAndPassTheRest) {
    auto* edit = control<QLineEdit>("extraFlagsEdit");
    edit->setText(QStringLiteral("-t 8 -c 8192 --alias 'my model' -nkvo"));
    emit edit->editingFinished();
    ServerSettings expected = panelDefaults();
    expected.contextTokens = 8192;
    expected.kvOffload = false;
    expectSession(expected);
    EXPECT_EQ(m_session.extraArgs(), (std::vector<std::string>{"-t", "8", "--alias", "my model"}));
    const QString note = control<QLabel>("extraFlagsNote")->text();
    EXPECT_TRUE(note.contains(QStringLiteral("-c 8192"))) << note.toStdString();
    EXPECT_TRUE(note.contains(QStringLiteral("-nkvo"))) << note.toStdString();
    EXPECT_EQ(control<QSpinBox>("contextSpin")->value(), 8192);
}

// --lora in the extra flags: the panel reads the adapter's header and the session's estimate is
// the core's with that adapter (its weights as LoRA buffers); a file that is no adapter is not
// applied, with the reader's reason.
TEST_F(SettingsPanelTest, ALoraAdapterInTheExtraFlagsIsReadAndCounted) {
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    const auto modelSpec = test::loadShape("llama");
    ASSERT_TRUE(modelSpec.ok()) << modelSpec.error().message;
    const std::string modelPath = directory.filePath(QStringLiteral("llama.gguf")).toStdString();
    ASSERT_TRUE(test::writeSpecAsGguf(*modelSpec, modelPath).ok());
    Result<LoadedModel> model = loadModel(modelPath);
    ASSERT_TRUE(model.ok()) << model.error().message;
    m_session.setModel(std::move(*model));
    const auto adapterSpec = test::loadModelSpecFile(test::shapesDirectory() + "/lora/llama-lora-r16.json");
    ASSERT_TRUE(adapterSpec.ok()) << adapterSpec.error().message;
    const std::string adapterPath = directory.filePath(QStringLiteral("llama-lora-r16.gguf")).toStdString();
    ASSERT_TRUE(test::writeSpecAsGguf(*adapterSpec, adapterPath).ok());

    auto* edit = control<QLineEdit>("extraFlagsEdit");
    edit->setText(QStringLiteral("--lora ") + QString::fromStdString(adapterPath));
    emit edit->editingFinished();
    EXPECT_FALSE(edit->property("invalid").toBool())
        << control<QLabel>("extraFlagsNote")->text().toStdString();
    ASSERT_EQ(m_session.settings().loraAdapters.size(), 1u);
    const auto adapters = readLoraAdapters({adapterPath});
    ASSERT_TRUE(adapters.ok()) << adapters.error().message;
    const auto core = estimateMemory(m_session.model().info, m_session.settings(), m_session.gpus(),
                                     CompanionModels{*adapters, std::nullopt, std::nullopt});
    ASSERT_TRUE(core.ok() && m_session.estimate().ok());
    EXPECT_EQ(*m_session.estimate(), *core);
    std::uint64_t loraBytes = 0;
    for (const DeviceEstimate& device : m_session.estimate()->devices) {
        for (const BufferEstimate& buffer : device.buffers) {
            loraBytes += buffer.owner == BufferOwner::LoraAdapter ? buffer.bytes : 0;
        }
    }
    EXPECT_EQ(loraBytes, adapters->front().weightBytes());

    edit->setText(QStringLiteral("--lora ") + QString::fromStdString(modelPath)); // a model, not an adapter
    emit edit->editingFinished();
    EXPECT_TRUE(edit->property("invalid").toBool());
    EXPECT_TRUE(control<QLabel>("extraFlagsNote")->text().startsWith(QStringLiteral("Not applied")));
    EXPECT_EQ(m_session.settings().loraAdapters.front().path, adapterPath) << "nothing applied";
}

TEST_F(SettingsPanelTest, AnExtraFlagsErrorIsShownAndNothingIsLost) {
    auto* edit = control<QLineEdit>("extraFlagsEdit");
    const QString text = QStringLiteral("-t 8 --alias 'unclosed");
    edit->setText(text);
    emit edit->editingFinished();
    EXPECT_EQ(edit->text(), text);
    EXPECT_EQ(m_session.settings(), ServerSettings{});
    EXPECT_TRUE(m_session.extraArgs().empty());
    EXPECT_TRUE(control<QLabel>("extraFlagsNote")->text().contains(QStringLiteral("not closed")));
    EXPECT_TRUE(edit->property("invalid").toBool());
    edit->setText(QStringLiteral("-t 8"));
    emit edit->editingFinished();
    EXPECT_FALSE(edit->property("invalid").toBool());
    EXPECT_EQ(m_session.extraArgs(), (std::vector<std::string>{"-t", "8"}));
}

TEST_F(SettingsPanelTest, BlockTypeKOnHeadDim80IsRefusedAtOnceWithLlamaCppsReason) {
    Result<LoadedModel> model = test::headDim80Model();
    ASSERT_TRUE(model.ok()) << model.error().message;
    m_session.setModel(std::move(*model));
    auto* flash = control<QComboBox>("flashAttentionCombo");
    flash->setCurrentIndex(flash->findData(static_cast<int>(FlashAttention::On)));
    auto* typeK = control<QComboBox>("cacheTypeKCombo");
    const int q4 = typeK->findData(static_cast<int>(GgmlType::Q4_0));
    EXPECT_TRUE(typeK->itemText(q4).contains(QStringLiteral("does not divide n_embd_head_k=80")))
        << typeK->itemText(q4).toStdString(); // marked before it is picked
    EXPECT_EQ(typeK->itemText(typeK->findData(static_cast<int>(GgmlType::F16))), QStringLiteral("f16"));
    selectType(typeK, GgmlType::Q4_0);

    ServerSettings expected = panelDefaults();
    expected.flashAttention = FlashAttention::On;
    expected.cacheTypeK = GgmlType::Q4_0;
    expectSession(expected);
    ASSERT_FALSE(m_session.estimate().ok());
    EXPECT_EQ(m_session.estimate().error().code, "settings.block-size-mismatch");
    auto* error = control<QLabel>("settingsErrorLabel");
    EXPECT_TRUE(error->isVisibleTo(&m_panel));
    EXPECT_TRUE(error->text().contains(QString::fromStdString(m_session.estimate().error().message)))
        << error->text().toStdString();
    EXPECT_TRUE(typeK->property("invalid").toBool());
    EXPECT_TRUE(flash->property("invalid").toBool());
    EXPECT_FALSE(control<QComboBox>("cacheTypeVCombo")->property("invalid").toBool());
    EXPECT_TRUE(typeK->toolTip().contains(QStringLiteral("n_embd_head_k=80")));
    EXPECT_EQ(typeK->currentIndex(), q4); // still selected: the user decides

    flash->setCurrentIndex(flash->findData(static_cast<int>(FlashAttention::Off))); // 8 x 80 = 20 blocks
    EXPECT_TRUE(m_session.estimate().ok()) << m_session.estimate().error().message;
    EXPECT_FALSE(error->isVisibleTo(&m_panel));
    EXPECT_FALSE(typeK->property("invalid").toBool());
    EXPECT_EQ(typeK->itemText(q4), QStringLiteral("q4_0"));
}

TEST_F(SettingsPanelTest, QuantizedVWithFlashAttentionOffIsFlagged) {
    auto* flash = control<QComboBox>("flashAttentionCombo");
    flash->setCurrentIndex(flash->findData(static_cast<int>(FlashAttention::Off)));
    auto* typeV = control<QComboBox>("cacheTypeVCombo");
    const int q8 = typeV->findData(static_cast<int>(GgmlType::Q8_0));
    EXPECT_TRUE(typeV->itemText(q8).contains(QStringLiteral("flash_attn")))
        << typeV->itemText(q8).toStdString();
    selectType(typeV, GgmlType::Q8_0);
    ASSERT_FALSE(m_session.estimate().ok());
    EXPECT_EQ(m_session.estimate().error().code, "settings.quantized-v-needs-fa");
    EXPECT_TRUE(control<QLabel>("settingsErrorLabel")
                    ->text()
                    .contains(QString::fromStdString(m_session.estimate().error().message)));
    EXPECT_TRUE(typeV->property("invalid").toBool());
    EXPECT_TRUE(flash->property("invalid").toBool());
    EXPECT_FALSE(control<QComboBox>("cacheTypeKCombo")->property("invalid").toBool());
}

TEST_F(SettingsPanelTest, ChangesFromElsewhereUpdateTheControlsWithoutWritingBack) {
    QSignalSpy settingsSpy(&m_session, &SizingSession::settingsChanged);
    ServerSettings outside;
    outside.contextTokens = 40000; // between two stops: the slider must not write its stop back
    outside.parallelSlots = 2;
    outside.cacheTypeK = GgmlType::Q8_0;
    outside.cacheTypeV = GgmlType::Q4_0;
    outside.batchTokens = 4096;
    outside.swaFull = true;
    outside.loadMode = LoadMode::Mmap;
    outside.gpuLayers = GpuLayers::count(12);
    m_session.setSettings(outside);
    EXPECT_EQ(settingsSpy.count(), 1);
    EXPECT_EQ(m_session.settings(), outside);
    EXPECT_EQ(control<QSpinBox>("contextSpin")->value(), 40000);
    EXPECT_EQ(control<QSlider>("contextSlider")->value(), m_panel.contextStops().nearestIndex(40000));
    EXPECT_EQ(control<QSpinBox>("slotsSpin")->value(), 2);
    EXPECT_EQ(control<QComboBox>("cacheTypeKCombo")->currentData().toInt(), static_cast<int>(GgmlType::Q8_0));
    EXPECT_EQ(control<QComboBox>("cacheTypeVCombo")->currentData().toInt(), static_cast<int>(GgmlType::Q4_0));
    EXPECT_EQ(control<QSpinBox>("batchSpin")->value(), 4096);
    EXPECT_TRUE(control<QCheckBox>("swaFullCheck")->isChecked());
    EXPECT_EQ(control<QComboBox>("loadModeCombo")->currentData().toInt(), static_cast<int>(LoadMode::Mmap));
    EXPECT_EQ(control<QSpinBox>("gpuLayersSpin")->value(), 12);
    EXPECT_FALSE(control<QCheckBox>("gpuLayersAllCheck")->isChecked());

    Result<LoadedModel> other = loadModel("llama-3-8b-q4_k_m");
    ASSERT_TRUE(other.ok());
    m_session.setModel(std::move(*other));
    EXPECT_EQ(settingsSpy.count(), 2); // the session's own reset, nothing from the panel
    EXPECT_EQ(m_session.settings(), ServerSettings{});
    const int training = static_cast<int>(m_session.model().info.trainingContext);
    EXPECT_EQ(control<QSpinBox>("contextSpin")->maximum(), training);
    EXPECT_EQ(control<QSpinBox>("contextSpin")->value(), training);
    EXPECT_EQ(m_panel.contextStops().maximum(), static_cast<std::uint32_t>(training));
    EXPECT_EQ(control<QComboBox>("cacheTypeKCombo")->currentText(), QStringLiteral("f16"));
    EXPECT_TRUE(control<QCheckBox>("gpuLayersAllCheck")->isChecked());
}

TEST_F(SettingsPanelTest, TheKvNoteGivesSeed003sAdviceAndLlamaCppsBytes) {
    // One line in the panel, the whole note on hover (a 1366x768 screen keeps every control).
    EXPECT_FALSE(control<QLabel>("kvTypeNote")->text().contains(QStringLiteral("\n")));
    EXPECT_EQ(control<QComboBox>("cacheTypeKCombo")->toolTip().contains(QStringLiteral("K and V differ")),
              true);
    const QString note = control<QLabel>("kvTypeNote")->toolTip();
    EXPECT_TRUE(note.contains(QStringLiteral("q4_0"))) << note.toStdString();
    EXPECT_TRUE(note.contains(QStringLiteral("K and V differ"))) << note.toStdString();
    EXPECT_TRUE(note.contains(QStringLiteral("34 bytes per 32 values (1.0625 bytes/value)")))
        << note.toStdString();
}

} // namespace
} // namespace llamafit

namespace llamafit {
namespace {

// What the replica of llama.cpp's fit says for the session with -c left unset.
FitOutcome fitWithoutContext(const SizingSession& session, const FitParams& params = {}) {
    FitRequest request;
    request.settings = session.settings();
    request.settings.contextTokens.reset();
    request.gpus = session.gpus();
    const Machine& machine = session.machine();
    request.hostTotalBytes = machine.pools[machine.hostPoolIndex].capacityBytes;
    request.params = params;
    Result<FitOutcome> outcome = replicateLlamaFit(session.sizingModel(), request);
    EXPECT_TRUE(outcome);
    return *outcome;
}

TEST_F(SettingsPanelGpuTest, FitContextLabelSaysWhatLlamaServerPicksForAnUnsetContext) {
    Result<LoadedModel> model = loadModel("qwen2.5-32b-q4_k_m");
    ASSERT_TRUE(model) << model.error().message;
    m_session.setModel(std::move(*model));
    auto* label = control<QLabel>("fitContextLabel");
    const FitOutcome fitted = fitWithoutContext(m_session);
    ASSERT_EQ(fitted.status, FitStatus::Fitted) << "32B on an 8 GB GPU: the fit must move layers";
    const QString expected =
        QStringLiteral("Left unset, llama-server will pick -c %1. Its fit also sets -ngl %2.")
            .arg(fitted.contextTokens)
            .arg(fitted.gpuLayers);
    EXPECT_EQ(label->text().toStdString(), expected.toStdString());
    EXPECT_EQ(label->toolTip().toStdString(), fitArgumentsText(fitted));

    // -ngl set by the user: llama.cpp's fit gives up once layers would have to move.
    control<QCheckBox>("gpuLayersAllCheck")->setChecked(false);
    auto* layers = control<QSpinBox>("gpuLayersSpin");
    layers->setValue(layers->maximum() - 1);
    const FitOutcome refused = fitWithoutContext(m_session);
    ASSERT_EQ(refused.status, FitStatus::Failed);
    const QString gaveUp = QStringLiteral("Left unset, llama-server's fit gives up (%1) and runs with -c %2.")
                               .arg(QString::fromStdString(refused.failure))
                               .arg(refused.contextTokens);
    EXPECT_EQ(label->text().toStdString(), gaveUp.toStdString());
}

TEST_F(SettingsPanelTest, FitContextLabelFollowsTheFitTargetOfTheExtraFlags) {
    auto* label = control<QLabel>("fitContextLabel");
    const FitOutcome plain = fitWithoutContext(m_session);
    const QString plainText =
        QStringLiteral("Left unset, llama-server will pick -c %1.").arg(plain.contextTokens);
    EXPECT_TRUE(label->text().startsWith(plainText)) << label->text().toStdString();

    // A target that leaves the model 3 GiB of each device: the context shrinks.
    const Machine& machine = m_session.machine();
    const std::uint64_t hostMiB = machine.pools[machine.hostPoolIndex].capacityBytes / (1024 * 1024);
    auto* edit = control<QLineEdit>("extraFlagsEdit");
    edit->setText(QStringLiteral("-fitt %1").arg(hostMiB - 3072));
    emit edit->editingFinished();
    FitParams params;
    params.targetsMiB = {hostMiB - 3072};
    const FitOutcome shrunk = fitWithoutContext(m_session, params);
    EXPECT_LT(shrunk.contextTokens, plain.contextTokens);
    const QString shrunkText =
        QStringLiteral("Left unset, llama-server will pick -c %1.").arg(shrunk.contextTokens);
    EXPECT_TRUE(label->text().startsWith(shrunkText)) << label->text().toStdString();
}

TEST_F(SettingsPanelTest, TheMtpCheckShowsForAFileWithANextnBlockAndSetsSpecTypeDraftMtp) {
    auto* mtp = control<QCheckBox>("mtpDraftCheck");
    Result<LoadedModel> plain = test::headDim80Model();
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    m_session.setModel(std::move(*plain));
    EXPECT_FALSE(mtp->isVisibleTo(&m_panel)) << "llama-server refuses draft-mtp without a NextN block";

    Result<LoadedModel> model = test::mtpShapeModel();
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_GT(model->info.nextnLayerCount, 0u);
    m_session.setModel(std::move(*model));
    ServerSettings start = panelDefaults();
    start.contextTokens = 4096;
    m_session.setSettings(start);
    ASSERT_TRUE(mtp->isVisibleTo(&m_panel));
    EXPECT_FALSE(mtp->isChecked());
    EXPECT_FALSE(m_session.estimate()->mtp.has_value());

    mtp->click();
    ServerSettings expected = start;
    expected.speculative.types = {SpeculativeType::DraftMtp};
    expectSession(expected);
    ASSERT_TRUE(m_session.estimate().ok());
    EXPECT_TRUE(m_session.estimate()->mtp.has_value()) << "the draft context is in the estimate";

    mtp->click();
    expectSession(start);

    // Set elsewhere (a restored profile, the picker's "with MTP"): the check follows.
    m_session.setSettings(expected);
    EXPECT_TRUE(mtp->isChecked());
    EXPECT_EQ(m_session.settings(), expected) << "following does not write back";
}

} // namespace
} // namespace llamafit

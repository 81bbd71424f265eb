// AdvicePanel: each solver button sets exactly the solver's answer (or says why nothing fits),
// and the decode-speed bound follows the bandwidth spin box.
#include "ui/settings/advicepanel.h"

#include "core/machine/bandwidth.h"
#include "core/machine/kvpairspeed.h"
#include "core/sizing/solvers.h"
#include "tests/gui/settings/settingstestmodels.h"
#include "ui/chartstyle.h"
#include "ui/sessionspeed.h"
#include "ui/sizingsession.h"

#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

template <typename T> T* control(QWidget& panel, const char* name) {
    T* widget = panel.findChild<T*>(QString::fromLatin1(name));
    EXPECT_NE(widget, nullptr) << name;
    return widget;
}

void useModel(SizingSession& session, const std::string& cardId) {
    Result<LoadedModel> model = loadModel(cardId);
    ASSERT_TRUE(model.ok()) << model.error().message;
    session.setModel(std::move(*model));
}

QString resultText(QWidget& panel) {
    return control<QLabel>(panel, "adviceResultLabel")->text();
}

TEST(AdvicePanel, LargestContextSetsTheSolversAnswerForTheCurrentPair) {
    SizingSession session(test::builtinMachine("rtx-4060-8gb"));
    useModel(session, "qwen3.5-4b-q4_k_m"); // 262144 tokens of training context
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    session.setSettings(settings);
    AdvicePanel panel(&session);
    const std::vector<ContextFit> solved = largestContextPerKvPair(
        session.model().info, settings, session.gpus(), session.budget(), {{GgmlType::Q8_0, GgmlType::Q8_0}});
    ASSERT_EQ(solved.size(), 1u);
    ASSERT_TRUE(solved.front().fits) << solved.front().overrun.device;
    ASSERT_NE(solved.front().contextTokens, 4096u);
    ASSERT_LT(solved.front().contextTokens, session.model().info.trainingContext); // the budget binds

    control<QPushButton>(panel, "largestContextButton")->click();
    ServerSettings expected = settings;
    expected.contextTokens = solved.front().contextTokens;
    EXPECT_EQ(session.settings(), expected);
    EXPECT_TRUE(resultText(panel).contains(QString::number(solved.front().contextTokens)))
        << resultText(panel).toStdString();
}

TEST(AdvicePanel, NothingFitsIsSaidWithTheReasonAndChangesNothing) {
    SizingSession session(test::builtinMachine("rtx-4060-8gb"));
    useModel(session, "qwen2.5-32b-q4_k_m"); // ~19 GB of weights, all layers on an 8 GB card
    AdvicePanel panel(&session);
    const ServerSettings before = session.settings();
    const std::vector<ContextFit> solved =
        largestContextPerKvPair(session.model().info, before, session.gpus(), session.budget(),
                                {{before.cacheTypeK, before.cacheTypeV}});
    ASSERT_FALSE(solved.front().fits);
    control<QPushButton>(panel, "largestContextButton")->click();
    EXPECT_EQ(session.settings(), before);
    EXPECT_TRUE(resultText(panel).contains(QStringLiteral("Does not fit")))
        << resultText(panel).toStdString();
    // The solver's numbers, worded by the panel: the device over budget and what it needs.
    ASSERT_EQ(solved.front().failure, FitFailure::OverBudgetAtSmallest);
    EXPECT_TRUE(resultText(panel).contains(QString::fromStdString(solved.front().overrun.device)))
        << resultText(panel).toStdString();
    EXPECT_TRUE(resultText(panel).contains(formatMiBText(solved.front().overrun.neededBytes)))
        << resultText(panel).toStdString();
}

TEST(AdvicePanel, BestKvSetsTheSolversPairForTheCurrentContext) {
    SizingSession session(test::builtinMachine("rtx-4060-8gb"));
    useModel(session, "llama-3-8b-q4_k_m");
    ServerSettings settings;
    settings.contextTokens = 8192;
    settings.parallelSlots = 4;
    settings.kvUnified = false;
    session.setSettings(settings);
    AdvicePanel panel(&session);
    const ContextFit solved =
        bestKvPairForContext(session.model().info, settings, session.gpus(), session.budget());
    ASSERT_TRUE(solved.fits);
    control<QPushButton>(panel, "bestKvButton")->click();
    ServerSettings expected = settings;
    expected.cacheTypeK = solved.typeK;
    expected.cacheTypeV = solved.typeV;
    EXPECT_EQ(session.settings(), expected);
    EXPECT_TRUE(resultText(panel).contains(QString::fromStdString(std::string(ggmlTypeName(solved.typeV)))));
}

TEST(AdvicePanel, BestKvGivesTheExpectedDecodeSpeedOfThePairAndOfTheOneItReplaces) {
    SizingSession session(test::builtinMachine("rtx-4060-8gb"));
    useModel(session, "llama-3-8b-q4_k_m");
    ASSERT_TRUE(session.bandwidthBytesPerSecond().has_value()) << "the profile has a bandwidth figure";
    ServerSettings settings;
    settings.contextTokens = 32768; // f16/f16 needs 4 GiB of KV here: it does not fit 8 GB
    settings.parallelSlots = 1;
    session.setSettings(settings);
    AdvicePanel panel(&session);
    const ContextFit solved =
        bestKvPairForContext(session.model().info, settings, session.gpus(), session.budget());
    ASSERT_TRUE(solved.fits);
    ASSERT_NE(solved.typeV, GgmlType::F16);
    const SpeedEfficiency efficiency = SessionSpeed(&session).efficiency();
    const auto expectedAt = [&](GgmlType typeK, GgmlType typeV) {
        const std::optional<SpeedPrediction> speed =
            speedWithKvPair(session.model().info, settings, typeK, typeV, 32768, session.gpus(),
                            *session.bandwidthBytesPerSecond(), session.machine().fp16Tflops, efficiency);
        return speed ? speed->decodeTpsExpected : 0.0;
    };
    const double chosen = expectedAt(solved.typeK, solved.typeV);
    const double replaced = expectedAt(GgmlType::F16, GgmlType::F16);
    ASSERT_GT(chosen, replaced) << "a smaller cache reads fewer bytes per token";
    control<QPushButton>(panel, "bestKvButton")->click();
    const QString text = resultText(panel);
    EXPECT_TRUE(text.contains(QStringLiteral("decode ~%1 t/s expected").arg(chosen, 0, 'f', 1)))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("(K f16 / V f16: ~%1 t/s)").arg(replaced, 0, 'f', 1)))
        << text.toStdString();
}

TEST(AdvicePanel, MostGpuLayersSetsTheSolversLayerCount) {
    SizingSession session(test::builtinMachine("rtx-4060-8gb"));
    useModel(session, "qwen2.5-32b-q4_k_m");
    ServerSettings settings;
    settings.contextTokens = 8192;
    session.setSettings(settings);
    AdvicePanel panel(&session);
    const GpuLayerFit solved =
        mostGpuLayers(session.model().info, settings, session.gpus(), session.budget());
    ASSERT_TRUE(solved.fits);
    ASSERT_GT(solved.gpuLayers, 0);
    ASSERT_LT(solved.gpuLayers, static_cast<int>(session.model().info.trunkLayerCount()) + 1);
    auto* button = control<QPushButton>(panel, "mostGpuLayersButton");
    EXPECT_TRUE(button->isEnabled());
    button->click();
    ServerSettings expected = settings;
    expected.gpuLayers = GpuLayers::count(static_cast<std::uint32_t>(solved.gpuLayers));
    EXPECT_EQ(session.settings(), expected);
    EXPECT_TRUE(resultText(panel).contains(QString::number(solved.gpuLayers)));

    session.setMachine(test::builtinMachine("cpu-only"));
    EXPECT_FALSE(button->isEnabled());
}

TEST(AdvicePanel, DecodeSpeedIsTheBoundAtAFullAndAHalfSlotAndFollowsTheBandwidth) {
    SizingSession session(test::builtinMachine(defaultMachineId()));
    ServerSettings settings;
    settings.contextTokens = 32768;
    settings.parallelSlots = 1;
    session.setSettings(settings);
    AdvicePanel panel(&session);
    auto* speed = control<QLabel>(panel, "decodeSpeedLabel");
    auto* bandwidth = control<QDoubleSpinBox>(panel, "bandwidthSpin");
    const std::optional<std::uint64_t> machineBandwidth = session.machine().bandwidthBytesPerSecond;
    ASSERT_TRUE(machineBandwidth.has_value());
    EXPECT_DOUBLE_EQ(bandwidth->value(), static_cast<double>(*machineBandwidth) / 1e9);

    auto expectedText = [&](std::uint64_t bytesPerSecond) {
        const MemoryEstimate& estimate = *session.estimate();
        const double full =
            estimateDecodeSpeed(session.model().info, estimate, bytesPerSecond).tokensPerSecond;
        const double half =
            estimateDecodeSpeed(session.model().info, estimate, bytesPerSecond, estimate.context.nCtxSeq / 2)
                .tokensPerSecond;
        return QStringLiteral("≤ %1 t/s (full 32k slot) · ≤ %2 t/s (half)")
            .arg(full, 0, 'f', 1)
            .arg(half, 0, 'f', 1);
    };
    EXPECT_TRUE(speed->text().contains(expectedText(*machineBandwidth))) << speed->text().toStdString();
    EXPECT_TRUE(speed->text().contains(QStringLiteral("upper bound")));
    // And the expected rate with its source (issue 15 item 2).
    EXPECT_TRUE(speed->text().contains(QStringLiteral("expected ~"))) << speed->text().toStdString();
    EXPECT_TRUE(speed->text().contains(QStringLiteral("docs/speed.md")) ||
                speed->text().contains(QStringLiteral("learned from")))
        << speed->text().toStdString();

    const QString before = speed->text();
    bandwidth->setValue(100.0);
    EXPECT_EQ(session.bandwidthOverride(), std::optional<std::uint64_t>(100'000'000'000ULL));
    EXPECT_NE(speed->text(), before);
    EXPECT_TRUE(speed->text().contains(expectedText(100'000'000'000ULL))) << speed->text().toStdString();

    control<QPushButton>(panel, "bandwidthResetButton")->click();
    EXPECT_FALSE(session.bandwidthOverride().has_value());
    EXPECT_DOUBLE_EQ(bandwidth->value(), static_cast<double>(*machineBandwidth) / 1e9);
    EXPECT_EQ(speed->text(), before);
}

TEST(AdvicePanel, ExternalChangesDoNotWriteBack) {
    SizingSession session(test::builtinMachine(defaultMachineId()));
    AdvicePanel panel(&session);
    QSignalSpy settingsSpy(&session, &SizingSession::settingsChanged);
    ServerSettings settings;
    settings.contextTokens = 8192;
    session.setSettings(settings);
    session.setBandwidthOverride(300'000'000'000ULL);
    EXPECT_EQ(settingsSpy.count(), 1);
    EXPECT_DOUBLE_EQ(control<QDoubleSpinBox>(panel, "bandwidthSpin")->value(), 300.0);
    EXPECT_EQ(session.bandwidthOverride(), std::optional<std::uint64_t>(300'000'000'000ULL));
}

} // namespace
} // namespace llamafit

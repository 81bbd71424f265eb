// SweepChart: the largest context per K/V pair is exactly largestContextPerKvPair()'s answer,
// each line is the estimator's total for the constraining device, refused pairs are left out
// with a note, a burst of changes costs one recompute, and real mouse clicks on a point, a
// marker and a legend entry set the session's context and K/V types.
#include "ui/charts/sweepchart.h"

#include "chartfixtures.h"
#include "core/common/units.h"
#include "core/sizing/estimator.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <qcustomplot.h>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace llamafit {
namespace {

using testing::makeSession;
using testing::settingsWith;

// How long a recompute may take before the test gives up: it returns as soon as the chart says it is
// done. A settings change compiles new plans for every K/V pair; under Wine on a loaded two-core
// machine one such recompute has taken over 10 s.
constexpr int kWaitMs = 60000;

std::vector<KvPair> expectedPairs(const ServerSettings& settings) {
    std::vector<KvPair> pairs{{GgmlType::F16, GgmlType::F16},
                              {GgmlType::Q8_0, GgmlType::Q8_0},
                              {GgmlType::Q4_0, GgmlType::Q4_0},
                              {GgmlType::F16, GgmlType::Q8_0}};
    const KvPair current{settings.cacheTypeK, settings.cacheTypeV};
    if (std::find(pairs.begin(), pairs.end(), current) == pairs.end()) {
        pairs.push_back(current);
    }
    return pairs;
}

std::vector<ContextFit> solverAnswer(const SizingSession& session) {
    return largestContextPerKvPair(session.sizingModel(), session.settings(), session.gpus(),
                                   session.budget(), expectedPairs(session.settings()));
}

// Sets the settings and waits for the chart's coalesced recompute.
void setAndWait(SizingSession& session, SweepChart& chart, const ServerSettings& settings) {
    QSignalSpy spy(&chart, &SweepChart::recomputed);
    session.setSettings(settings);
    ASSERT_TRUE(spy.wait(kWaitMs));
}

void waitFirst(SweepChart& chart) {
    QSignalSpy spy(&chart, &SweepChart::recomputed);
    ASSERT_TRUE(spy.wait(kWaitMs));
}

class SweepChartOnMachine : public ::testing::TestWithParam<const char*> {};

TEST_P(SweepChartOnMachine, LargestContextsAreTheSolvers) {
    for (const char* card : {"", "llama-3.2-1b-q8_0"}) {
        auto session = makeSession(GetParam(), card);
        SweepChart chart(session.get());
        waitFirst(chart);
        const std::vector<ServerSettings> variants{
            settingsWith(4096),
            settingsWith(65536, GgmlType::Q8_0, GgmlType::Q8_0),
            settingsWith(65536, GgmlType::Q5_1, GgmlType::Q4_0, 2),
            settingsWith(4096, GgmlType::F16, GgmlType::F16, 4, 8),
        };
        for (const ServerSettings& settings : variants) {
            SCOPED_TRACE(std::string(GetParam()) + " " + card);
            setAndWait(*session, chart, settings);
            const std::vector<ContextFit> expected = solverAnswer(*session);
            EXPECT_EQ(chart.largestFits(), expected);
            EXPECT_EQ(chart.kvPairs(), expectedPairs(settings));
            for (const ContextFit& fit : expected) {
                QCPGraph* marker = chart.markerGraph(fit.typeK, fit.typeV);
                ASSERT_EQ(marker != nullptr, fit.fits);
                if (fit.fits) {
                    ASSERT_EQ(marker->dataCount(), 1);
                    EXPECT_EQ(marker->data()->constBegin()->key, static_cast<double>(fit.contextTokens));
                    QCPGraph* line = chart.seriesGraph(fit.typeK, fit.typeV);
                    ASSERT_NE(line, nullptr);
                    QString grouped = QString::number(fit.contextTokens);
                    for (int at = grouped.size() - 3; at > 0; at -= 3) {
                        grouped.insert(at, u' ');
                    }
                    EXPECT_TRUE(line->name().endsWith(QStringLiteral(": ") + grouped))
                        << line->name().toStdString();
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(BuiltinMachines, SweepChartOnMachine,
                         ::testing::Values("gmktec-evo-x2-64gb-32-32", "rtx-4060-8gb"));

TEST(SweepChart, EachLineIsTheEstimatorsTotalForTheGpu) {
    auto session = makeSession("rtx-4060-8gb", "llama-3.2-1b-q8_0");
    SweepChart chart(session.get());
    waitFirst(chart);
    setAndWait(*session, chart, settingsWith(4096, GgmlType::F16, GgmlType::F16, 1));
    EXPECT_EQ(chart.deviceName(), QStringLiteral("CUDA0"));
    const QVector<double> contexts = chart.seriesContexts(GgmlType::Q8_0, GgmlType::Q8_0);
    const QVector<double> totals = chart.seriesTotalsMiB(GgmlType::Q8_0, GgmlType::Q8_0);
    ASSERT_EQ(contexts.size(), totals.size());
    ASSERT_GT(contexts.size(), 20);
    EXPECT_EQ(contexts.front(), 256.0);
    EXPECT_EQ(contexts.back(), static_cast<double>(session->model().info.trainingContext));
    for (int i = 0; i < contexts.size(); ++i) {
        ServerSettings trial = session->settings();
        trial.contextTokens = static_cast<std::uint32_t>(contexts[i]);
        trial.cacheTypeK = GgmlType::Q8_0;
        trial.cacheTypeV = GgmlType::Q8_0;
        const Result<MemoryEstimate> estimate =
            estimateMemory(session->sizingModel(), trial, session->gpus());
        ASSERT_TRUE(estimate.ok());
        EXPECT_NEAR(totals[i], toMiB(estimate->devices.at(1).bytes.totalBytes()), 0.01) << contexts[i];
    }
    EXPECT_LT(totals.front(), totals.back());

    // No layers on the GPU: the host is what constrains.
    setAndWait(*session, chart, settingsWith(4096, GgmlType::F16, GgmlType::F16, 1, 0));
    EXPECT_EQ(chart.deviceName(), QStringLiteral("CPU"));
    EXPECT_EQ(chart.largestFits(), solverAnswer(*session));
}

TEST(SweepChart, RefusedPairsAreLeftOutWithANote) {
    auto session = makeSession("rtx-4060-8gb", "llama-3.2-1b-q8_0");
    SweepChart chart(session.get());
    waitFirst(chart);
    ServerSettings settings = settingsWith(4096);
    settings.flashAttention = FlashAttention::Off; // a quantized V cache needs flash attention
    setAndWait(*session, chart, settings);
    EXPECT_NE(chart.seriesGraph(GgmlType::F16, GgmlType::F16), nullptr);
    EXPECT_EQ(chart.seriesGraph(GgmlType::Q8_0, GgmlType::Q8_0), nullptr);
    EXPECT_EQ(chart.seriesGraph(GgmlType::Q4_0, GgmlType::Q4_0), nullptr);
    auto* note = chart.findChild<QLabel*>(QStringLiteral("sweepNoteLabel"));
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->text().contains(QStringLiteral("q8_0/q8_0"))) << note->text().toStdString();
    EXPECT_TRUE(note->text().contains(QStringLiteral("q4_0/q4_0")));
    EXPECT_FALSE(note->text().contains(QStringLiteral("f16/f16")));
    EXPECT_EQ(chart.largestFits(), solverAnswer(*session));
}

TEST(SweepChart, ABurstOfChangesRecomputesOnce) {
    auto session = makeSession("rtx-4060-8gb", "llama-3.2-1b-q8_0");
    SweepChart chart(session.get());
    waitFirst(chart);
    QSignalSpy spy(&chart, &SweepChart::recomputed);
    session->setSettings(settingsWith(4096));
    session->setSettings(settingsWith(8192, GgmlType::Q8_0, GgmlType::Q8_0));
    session->setSettings(settingsWith(16384, GgmlType::Q5_0, GgmlType::Q5_0));
    ASSERT_TRUE(spy.wait(kWaitMs));
    QCoreApplication::processEvents();
    EXPECT_EQ(spy.count(), 1);
    EXPECT_EQ(chart.kvPairs(), expectedPairs(session->settings())); // the last value, q5_0/q5_0 added
}

// An RPC host in front of the local GPU that holds most of the layers (16 GiB beside the 8 GiB
// card, split by free memory): the line is the local GPU's, the one with the least room, not the
// first device in llama.cpp's order; the note says why.
TEST(SweepChart, WithAnRpcHostTheLineIsTheDeviceWithTheLeastRoom) {
    auto session = makeSession("rtx-4060-8gb", "llama-3.2-1b-q8_0");
    SweepChart chart(session.get());
    waitFirst(chart);
    QSignalSpy spy(&chart, &SweepChart::recomputed);
    session->setRpcHosts({RpcHost{"127.0.0.1:50052", 16384ULL << 20}});
    ASSERT_TRUE(spy.wait(kWaitMs));
    ASSERT_EQ(session->gpus().size(), 2U);
    EXPECT_EQ(chart.deviceName(), QString::fromStdString(session->gpus()[1].name));
    const auto* note = chart.findChild<QLabel*>(QStringLiteral("sweepNoteLabel"));
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->text().contains(QStringLiteral("least room"))) << note->text().toStdString();
    EXPECT_EQ(chart.largestFits(), solverAnswer(*session));
}

TEST(SweepChart, AContextChangeAloneMovesTheCurrentLineWithoutASweep) {
    auto session = makeSession("rtx-4060-8gb", "llama-3.2-1b-q8_0");
    SweepChart chart(session.get());
    waitFirst(chart);
    const int sweeps = chart.sweepCount();
    const std::vector<ContextFit> fits = chart.largestFits();
    QSignalSpy spy(&chart, &SweepChart::recomputed);
    session->setSettings(settingsWith(12288));
    ASSERT_TRUE(spy.wait(kWaitMs));
    EXPECT_EQ(chart.sweepCount(), sweeps);
    EXPECT_EQ(chart.currentContextLine(), 12288.0);
    EXPECT_EQ(chart.largestFits(), fits);
    session->setSettings(settingsWith(12288, GgmlType::Q8_0, GgmlType::Q8_0));
    ASSERT_TRUE(spy.wait(kWaitMs));
    EXPECT_EQ(chart.sweepCount(), sweeps + 1);
}

// A laid-out, painted chart so axis coordinates map to real pixels.
void layOut(SweepChart& chart) {
    chart.resize(1000, 700);
    chart.show();
    chart.plot()->replot();
}

QPoint pixelOf(const SweepChart& chart, double contextTokens, double valueGiB) {
    return QPointF(chart.plot()->xAxis->coordToPixel(contextTokens),
                   chart.plot()->yAxis->coordToPixel(valueGiB))
        .toPoint();
}

TEST(SweepChart, ClickingAPointSetsTheContextAndTypes) {
    auto session = makeSession("gmktec-evo-x2-64gb-32-32");
    SweepChart chart(session.get());
    waitFirst(chart);
    setAndWait(*session, chart, settingsWith(4096));
    layOut(chart);
    const QVector<double> contexts = chart.seriesContexts(GgmlType::Q8_0, GgmlType::Q8_0);
    const QVector<double> totals = chart.seriesTotalsMiB(GgmlType::Q8_0, GgmlType::Q8_0);
    const int index = static_cast<int>(contexts.indexOf(65536.0));
    ASSERT_GE(index, 0);
    QSignalSpy settingsSpy(session.get(), &SizingSession::settingsChanged);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, Qt::NoModifier,
                      pixelOf(chart, 65536.0, totals[index] / 1024));
    ASSERT_EQ(settingsSpy.count(), 1);
    EXPECT_EQ(session->settings().contextTokens, 65536u);
    EXPECT_EQ(session->settings().cacheTypeK, GgmlType::Q8_0);
    EXPECT_EQ(session->settings().cacheTypeV, GgmlType::Q8_0);

    // Far from every point: nothing changes.
    QTest::mouseClick(chart.plot(), Qt::LeftButton, Qt::NoModifier,
                      pixelOf(chart, 300.0, chart.plot()->yAxis->range().upper * 0.99));
    EXPECT_EQ(settingsSpy.count(), 1);
}

TEST(SweepChart, ClickingAMarkerOrALegendEntrySetsThatPairsLargestContext) {
    // Qwen3.5-4B on 8 GB: f16 runs out of VRAM well before the training context, q4_0 does not.
    auto session = makeSession("rtx-4060-8gb", "qwen3.5-4b-q4_k_m");
    SweepChart chart(session.get());
    waitFirst(chart);
    setAndWait(*session, chart, settingsWith(4096, GgmlType::F16, GgmlType::F16, 1));
    layOut(chart);
    const std::vector<ContextFit> fits = chart.largestFits();
    const auto fitOf = [&fits](GgmlType k, GgmlType v) {
        return *std::find_if(fits.begin(), fits.end(),
                             [&](const ContextFit& fit) { return fit.typeK == k && fit.typeV == v; });
    };
    const ContextFit f16 = fitOf(GgmlType::F16, GgmlType::F16);
    ASSERT_TRUE(f16.fits);
    QCPGraph* marker = chart.markerGraph(GgmlType::F16, GgmlType::F16);
    ASSERT_NE(marker, nullptr);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, Qt::NoModifier,
                      pixelOf(chart, marker->data()->constBegin()->key, marker->data()->constBegin()->value));
    EXPECT_EQ(session->settings().contextTokens, f16.contextTokens);
    EXPECT_EQ(session->settings().cacheTypeK, GgmlType::F16);

    // The legend entry of q4_0/q4_0 (after the recompute the click above caused).
    QSignalSpy spy(&chart, &SweepChart::recomputed);
    ASSERT_TRUE(spy.wait(kWaitMs));
    chart.plot()->replot();
    const ContextFit q4 = fitOf(GgmlType::Q4_0, GgmlType::Q4_0);
    ASSERT_TRUE(q4.fits);
    ASSERT_NE(q4.contextTokens, f16.contextTokens);
    QCPAbstractLegendItem* item =
        chart.plot()->legend->itemWithPlottable(chart.seriesGraph(GgmlType::Q4_0, GgmlType::Q4_0));
    ASSERT_NE(item, nullptr);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, Qt::NoModifier, item->rect().center());
    EXPECT_EQ(session->settings().contextTokens, q4.contextTokens);
    EXPECT_EQ(session->settings().cacheTypeK, GgmlType::Q4_0);
    EXPECT_EQ(session->settings().cacheTypeV, GgmlType::Q4_0);
}

} // namespace
} // namespace llamafit

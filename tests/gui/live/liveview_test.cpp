// The live view against the real llama-server 0.7.0 on the tiny real-weight model: started
// through ServerProcess with --metrics -lv 4 and two slots, sent completion requests (two at
// once), the view's charts, slot table, predicted-versus-actual table and log fill; a hidden
// view does not repaint while samples keep arriving, and repaints on show; stopping keeps
// the last data. Waits on events (signals, the event loop with a deadline), never sleeps.
// Every test stops its server in TearDown.
#include "tests/gui/live/systemrampool.h"
#include "ui/live/liveview.h"

#include "core/system/benchmarkstore.h"
#include "core/system/devicesampler.h"
#include "core/system/serverprobe.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"
#include "ui/live/comparisontable.h"
#include "ui/live/logpanel.h"
#include "ui/live/memorytimechart.h"
#include "ui/live/slotfilltable.h"
#include "ui/live/throughputchart.h"
#include "ui/sizingsession.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <functional>
#include <memory>

namespace llamafit {
namespace {

using State = ServerProcess::State;

// Runs the event loop until `done` or the deadline; the view's timers (250 ms refresh, the
// probe's and sampler's 100 ms) keep events coming, so each pass returns promptly.
bool waitUntil(const std::function<bool()>& done, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired()) {
            return false;
        }
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

Machine cpuOnlyMachine() {
    Machine machine;
    machine.id = "live-test-cpu";
    machine.name = "CPU-only test machine";
    machine.os = OsKind::Linux;
    machine.pools = {test::systemRamPool(16ULL << 30)};
    machine.hostPoolIndex = 0;
    return machine;
}

class LiveViewServerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const Result<std::string> server = test::findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = QString::fromStdString(*server);
        ASSERT_TRUE(m_dir.isValid());
        m_model = m_dir.filePath(QStringLiteral("live-tiny.gguf")).toStdString();
        const auto written = test::writeTinyModel(m_model);
        ASSERT_TRUE(written.ok()) << written.error().message;

        m_session = std::make_unique<SizingSession>(cpuOnlyMachine());
        Result<LoadedModel> loaded = loadModel(m_model);
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        m_session->setModel(std::move(*loaded));
        ServerSettings settings;
        settings.contextTokens = 1024;
        settings.parallelSlots = 2;
        m_session->setSettings(settings);
        ASSERT_TRUE(m_session->estimate().ok()) << m_session->estimate().error().message;

        m_view = std::make_unique<LiveView>(m_session.get(), &m_process);
        m_view->setSampleInterval(std::chrono::milliseconds(100));
        m_view->resize(1000, 800);
        m_view->show();
    }

    // Every server a test started is stopped here, whatever the test did.
    void TearDown() override {
        if (m_process.state() != State::Stopped && m_process.state() != State::Failed) {
            m_process.stop();
            waitUntil(
                [this] { return m_process.state() == State::Stopped || m_process.state() == State::Failed; },
                15000);
        }
        m_view.reset();
    }

    // Starts the server with the settings the session predicts for; true once Ready.
    bool startAndWaitReady() {
        const QStringList args{QStringLiteral("-m"),        QString::fromStdString(m_model),
                               QStringLiteral("-c"),        QStringLiteral("1024"),
                               QStringLiteral("-np"),       QStringLiteral("2"),
                               QStringLiteral("-t"),        QStringLiteral("2"),
                               QStringLiteral("--metrics"), QStringLiteral("-lv"),
                               QStringLiteral("4"),         QStringLiteral("--no-warmup")};
        if (!m_process.start(m_server, args)) {
            return false;
        }
        return waitUntil(
                   [this] { return m_process.state() == State::Ready || m_process.state() == State::Failed; },
                   60000) &&
               m_process.state() == State::Ready;
    }

    QNetworkReply* postCompletion(const QString& prompt, int predictTokens) {
        QNetworkRequest request(m_process.baseUrl().resolved(QUrl(QStringLiteral("/completion"))));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        const QJsonObject body{{QStringLiteral("prompt"), prompt},
                               {QStringLiteral("n_predict"), predictTokens},
                               {QStringLiteral("ignore_eos"), true}};
        return m_network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    }

    // Sends the requests together and waits for all their answers; true when all succeeded.
    bool complete(const QStringList& prompts, int predictTokens = 48) {
        std::vector<QNetworkReply*> replies;
        for (const QString& prompt : prompts) {
            replies.push_back(postCompletion(prompt, predictTokens));
        }
        const bool finished = waitUntil(
            [&] {
                return std::all_of(replies.begin(), replies.end(), [](auto* r) { return r->isFinished(); });
            },
            60000);
        bool ok = finished;
        for (QNetworkReply* reply : replies) {
            EXPECT_EQ(reply->error(), QNetworkReply::NoError) << reply->errorString().toStdString();
            ok = ok && reply->error() == QNetworkReply::NoError;
            reply->deleteLater();
        }
        return ok;
    }

    QString m_server;
    QTemporaryDir m_dir;
    std::string m_model;
    QNetworkAccessManager m_network;
    ServerProcess m_process; // declared before the view: the view must go first
    std::unique_ptr<SizingSession> m_session;
    std::unique_ptr<LiveView> m_view;
};

TEST_F(LiveViewServerTest, ChartsTablesAndLogFillWhileTheServerRuns) {
    EXPECT_FALSE(m_view->isPolling());
    ASSERT_TRUE(startAndWaitReady()) << m_process.failure().message << "\n" << m_process.log();
    EXPECT_TRUE(m_view->isPolling());
    ASSERT_NE(m_view->probe(), nullptr);
    ASSERT_NE(m_view->sampler(), nullptr);
    ASSERT_TRUE(m_view->prediction().has_value());
    EXPECT_EQ(*m_view->prediction(), *m_session->estimate());

    // The prediction is the one launched: a slider moved now does not change it.
    ServerSettings moved = m_session->settings();
    moved.contextTokens = 512;
    m_session->setSettings(moved);
    EXPECT_NE(*m_view->prediction(), *m_session->estimate());

    ASSERT_TRUE(complete({QStringLiteral("Once upon a time")}));
    ASSERT_TRUE(complete({QStringLiteral("The quick brown fox"), QStringLiteral("In a hole in the ground")}));

    const SlotFillTable* slotTable = m_view->slotTable();
    const ComparisonTable* comparison = m_view->comparisonTable();
    const bool filled = waitUntil(
        [&] {
            return m_view->peakTotalTokensPerSecond() > 0 && m_view->memorySampleCount() > 0 &&
                   slotTable->rowCount() == 2 &&
                   m_view->logPanel()->shownText().contains(QStringLiteral("KV buffer size"));
        },
        30000);
    EXPECT_TRUE(filled);
    EXPECT_GT(m_view->throughputSampleCount(), 0);
    EXPECT_GT(m_view->peakTotalTokensPerSecond(), 0.0);
    EXPECT_GT(m_view->memorySampleCount(), 0);
    EXPECT_GT(m_view->memoryChart()->latestRssMiB(), 0.0);
    EXPECT_EQ(m_view->memoryChart()->referenceLineCount(), 2); // predicted host total, RAM limit
    EXPECT_GT(m_view->throughputChart()->slotSeriesCount(), 0);
    EXPECT_GT(m_view->refreshCount(), 0);
    ASSERT_EQ(slotTable->rowCount(), 2);
    EXPECT_EQ(slotTable->item(0, SlotFillTable::SlotColumn)->text(), QStringLiteral("0"));
    EXPECT_EQ(slotTable->item(1, SlotFillTable::SlotColumn)->text(), QStringLiteral("1"));
    // -c 1024 over two slots: 512 tokens each.
    EXPECT_TRUE(slotTable->item(0, SlotFillTable::TokensColumn)->text().endsWith(QStringLiteral("/ 512")))
        << slotTable->item(0, SlotFillTable::TokensColumn)->text().toStdString();
    EXPECT_NE(m_view->findChild<QWidget*>(QStringLiteral("slotFillBar0")), nullptr);

    for (Component component : {Component::Model, Component::Kv, Component::Compute}) {
        const int row = comparison->rowOf(QStringLiteral("CPU"), component);
        ASSERT_GE(row, 0) << componentName(component);
        EXPECT_GT(comparison->item(row, ComparisonTable::PredictedColumn)->data(Qt::UserRole).toDouble(), 0.0)
            << componentName(component);
        EXPECT_GT(comparison->item(row, ComparisonTable::ActualColumn)->data(Qt::UserRole).toDouble(), 0.0)
            << componentName(component);
    }

    // Three finished completions of 48 tokens each, whatever the polls caught of them.
    const QLabel* totals = m_view->findChild<QLabel*>(QStringLiteral("runTotalsLabel"));
    ASSERT_NE(totals, nullptr);
    EXPECT_TRUE(
        waitUntil([&] { return totals->text().contains(QStringLiteral("144 tokens generated")); }, 15000))
        << totals->text().toStdString();
    // This machine has no bandwidth figure: the effective bandwidth alone, and the view says why.
    const QLabel* speed = m_view->findChild<QLabel*>(QStringLiteral("liveSpeedLabel"));
    ASSERT_NE(speed, nullptr);
    EXPECT_TRUE(speed->text().contains(QStringLiteral("effective bandwidth")) &&
                speed->text().contains(QStringLiteral("no bandwidth figure")))
        << speed->text().toStdString();

    const int memoryPoints = m_view->memorySampleCount();
    m_process.stop();
    ASSERT_TRUE(waitUntil([this] { return m_process.state() == State::Stopped; }, 15000));
    EXPECT_FALSE(m_view->isPolling());
    EXPECT_FALSE(m_view->probe()->isRunning());
    EXPECT_FALSE(m_view->sampler()->isRunning());
    // The last data stays on screen.
    EXPECT_GE(m_view->memorySampleCount(), memoryPoints);
    EXPECT_EQ(slotTable->rowCount(), 2);
    EXPECT_GT(comparison->rowCount(), 0);
}

// Issue 15 item 3: after a completion the view shows the measured decode rate next to the
// expected one and the effective bandwidth next to the machine's figure as launched.
TEST_F(LiveViewServerTest, MeasuredDecodeRateAndEffectiveBandwidthAgainstTheLaunchedMachine) {
    Machine machine = cpuOnlyMachine();
    machine.id = "live-test-cpu-50gbs";
    machine.bandwidthBytesPerSecond = 50'000'000'000ULL;
    m_session->setMachine(machine);
    const QLabel* label = m_view->findChild<QLabel*>(QStringLiteral("liveSpeedLabel"));
    ASSERT_NE(label, nullptr);
    EXPECT_TRUE(label->text().contains(QStringLiteral("—"))) << label->text().toStdString();
    ASSERT_TRUE(startAndWaitReady()) << m_process.failure().message << "\n" << m_process.log();
    // Moved after the launch: the view keeps comparing with the launched machine's 50 GB/s.
    m_session->setBandwidthOverride(7'000'000'000ULL);

    ASSERT_TRUE(complete({QStringLiteral("Once upon a time")}));
    ASSERT_TRUE(waitUntil([&] { return m_view->liveSpeed().has_value(); }, 15000))
        << label->text().toStdString();
    const LiveSpeed speed = *m_view->liveSpeed();
    EXPECT_GT(speed.measured.tokensPerSecond, 0.0);
    EXPECT_GT(speed.bytesPerToken, 0u);
    EXPECT_GT(speed.effectiveBytesPerSecond, 0.0);
    EXPECT_DOUBLE_EQ(speed.effectiveBytesPerSecond,
                     speed.measured.tokensPerSecond * static_cast<double>(speed.bytesPerToken));
    ASSERT_TRUE(speed.machineBytesPerSecond.has_value());
    EXPECT_EQ(*speed.machineBytesPerSecond, 50'000'000'000ULL);
    ASSERT_TRUE(speed.expectedTokensPerSecond.has_value());
    EXPECT_GT(*speed.expectedTokensPerSecond, 0.0);

    const QString text = label->text();
    EXPECT_TRUE(text.contains(QStringLiteral("Decode %1 t/s").arg(speed.measured.tokensPerSecond, 0, 'f', 1)))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("(expected %1)").arg(*speed.expectedTokensPerSecond, 0, 'f', 1)))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("effective bandwidth %1 GB/s of 50.0 GB/s")
                                  .arg(speed.effectiveBytesPerSecond / 1e9, 0, 'f', 1)))
        << text.toStdString();
    EXPECT_TRUE(label->toolTip().contains(QString::fromStdString(speed.efficiency.description)))
        << label->toolTip().toStdString();
}

// Learning from live runs (issue 15 item 2): a run that generated at least 1024 tokens is stored
// at Stopped as one of the launched machine's live runs, the view says so, and the session's
// efficiency for that machine is then learned from it. The store is a scratch folder.
TEST_F(LiveViewServerTest, ALongEnoughRunIsStoredForTheLaunchedMachineAndLearnedFrom) {
    QTemporaryDir storeFolder;
    ASSERT_TRUE(storeFolder.isValid());
    m_view->setBenchmarkFolder(storeFolder.path());
    Machine machine = cpuOnlyMachine();
    machine.id = "live-test-learning";
    machine.bandwidthBytesPerSecond = 50'000'000'000ULL;
    m_session->setMachine(machine);
    SessionSpeed sessionSpeed(m_session.get(), BenchmarkStore(storeFolder.path()));
    EXPECT_EQ(sessionSpeed.efficiency().source, SpeedSource::PublicDefaults);
    const QLabel* label = m_view->findChild<QLabel*>(QStringLiteral("liveLearningLabel"));
    ASSERT_NE(label, nullptr);
    QSignalSpy learned(m_view.get(), &LiveView::runLearned);
    ASSERT_TRUE(startAndWaitReady()) << m_process.failure().message << "\n" << m_process.log();

    // Three requests of 400 tokens: a 512-token slot holds each (-c 1024 -np 2).
    ASSERT_TRUE(complete({QStringLiteral("Once upon a time"), QStringLiteral("In a hole in the ground"),
                          QStringLiteral("The sky above the port")},
                         400));
    ASSERT_TRUE(waitUntil([&] { return label->text().contains(QStringLiteral("1200 tokens")); }, 15000))
        << label->text().toStdString();
    EXPECT_TRUE(label->text().contains(QStringLiteral("when the server stops")))
        << label->text().toStdString();
    m_process.stop();
    ASSERT_TRUE(waitUntil([&] { return m_process.state() == State::Stopped; }, 15000));
    EXPECT_EQ(learned.count(), 1);
    EXPECT_TRUE(label->text().startsWith(QStringLiteral("Learned from this run: 1200 tokens at ")))
        << label->text().toStdString();

    const Result<std::vector<LiveRunRecord>> runs =
        BenchmarkStore(storeFolder.path()).loadLiveRuns(machine.id);
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->front().generatedTokens, 1200u);
    EXPECT_EQ(runs->front().modelPath, m_model);
    EXPECT_GT(runs->front().decodeTps, 0.0);
    EXPECT_GT(runs->front().boundTps, 0.0);
    const SpeedEfficiency efficiency = sessionSpeed.efficiency();
    EXPECT_EQ(efficiency.source, SpeedSource::LiveRuns);
    EXPECT_NE(efficiency.description.find("1 live run(s)"), std::string::npos) << efficiency.description;
}

TEST_F(LiveViewServerTest, HiddenViewDoesNotRepaintAndCatchesUpOnShow) {
    ASSERT_TRUE(startAndWaitReady()) << m_process.failure().message << "\n" << m_process.log();
    ASSERT_TRUE(
        waitUntil([this] { return m_view->memorySampleCount() > 0 && m_view->refreshCount() > 0; }, 30000));

    m_view->hide();
    const int refreshes = m_view->refreshCount();
    const int memoryReplots = m_view->memoryChart()->replotCount();
    const int throughputReplots = m_view->throughputChart()->replotCount();
    QSignalSpy probeSamples(m_view->probe(), &ServerProbe::sampled);
    QSignalSpy deviceSamples(m_view->sampler(), &DeviceSampler::sampled);
    ASSERT_TRUE(waitUntil([&] { return probeSamples.count() >= 8 && deviceSamples.count() >= 3; }, 30000));
    EXPECT_EQ(m_view->refreshCount(), refreshes);
    EXPECT_EQ(m_view->memoryChart()->replotCount(), memoryReplots);
    EXPECT_EQ(m_view->throughputChart()->replotCount(), throughputReplots);

    m_view->show();
    EXPECT_GT(m_view->refreshCount(), refreshes); // the samples that came while hidden
    EXPECT_GT(m_view->memoryChart()->replotCount(), memoryReplots);
}

} // namespace
} // namespace llamafit

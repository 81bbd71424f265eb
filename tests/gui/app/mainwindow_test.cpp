// MainWindow, the composed app, driven through its real widgets by objectName: it starts on the
// default card with the start settings and the core's bars; the context controls move the KV bar
// to the core's number; the picker switches models and each model keeps its settings; closing
// saves what a restart restores; a corrupt settings file is moved aside with a message; and the
// end-to-end run: launch the real llama-server from the launch panel, send completions, watch
// the live view fill, stop it -- and closing the window stops a running server.
#include "ui/mainwindow.h"

#include "core/common/units.h"
#include "tests/gui/app/mainwindowfixture.h"
#include "tests/gui/charts/chartfixtures.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/poolsegments.h"
#include "ui/chartstyle.h"
#include "ui/live/comparisontable.h"
#include "ui/live/liveview.h"
#include "ui/settings/settingspanel.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>

#include <cerrno>
#include <csignal>

namespace llamafit {
namespace {

using testing::poolComponentBytes;

constexpr double kToleranceMiB = 0.01;

class MainWindowTest : public test::MainWindowFixture {
  protected:
    // Every drawn bar of the memory chart against the session's pool usage; returns how many
    // non-zero bars were compared.
    int expectChartMatchesSession(const std::string& context) {
        auto* chart = m_window->findChild<MemoryChart*>();
        EXPECT_NE(chart, nullptr);
        EXPECT_TRUE(m_session->poolUsage().has_value()) << context;
        if (chart == nullptr || !m_session->poolUsage()) {
            return 0;
        }
        const PoolUsage& usage = *m_session->poolUsage();
        int compared = 0;
        for (std::size_t pool = 0; pool < usage.pools.size(); ++pool) {
            if (!poolIsDrawn(usage.pools[pool])) {
                continue;
            }
            for (Component component : kChartComponentOrder) {
                const std::uint64_t expected = poolComponentBytes(usage, pool, component);
                EXPECT_NEAR(chart->barValueMiB(pool, component), toMiB(expected), kToleranceMiB)
                    << context << ": pool " << pool << " " << componentName(component);
                compared += expected > 0 ? 1 : 0;
            }
        }
        return compared;
    }

    // The KV bytes the core placed in the pool of the estimate's first device that has KV.
    std::pair<std::size_t, std::uint64_t> kvPoolAndBytes() const {
        const PoolUsage& usage = *m_session->poolUsage();
        for (std::size_t pool = 0; pool < usage.pools.size(); ++pool) {
            const std::uint64_t bytes = poolComponentBytes(usage, pool, Component::Kv);
            if (bytes > 0) {
                return {pool, bytes};
            }
        }
        return {0, 0};
    }

    // Chooses the tiny model through the picker's table once the scan has listed it.
    void chooseTinyInPicker() {
        ASSERT_TRUE(waitForScan());
        ASSERT_TRUE(activateModelRow(m_tinyPath)) << "the tiny model is listed";
        ASSERT_EQ(QString::fromStdString(m_session->model().path), m_tinyPath);
    }

    // Points the launch panel at the real llama-server, types the fast-start flags and a small
    // context, and waits until Launch is enabled (the binary's probe has answered).
    void prepareLaunch() {
        const auto server = test::findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("LLAMAFIT_NO_POPULATE"), QStringLiteral("1"));
        m_window->serverProcess()->setEnvironment(environment);

        auto* binary = child<QLineEdit>("serverBinaryEdit");
        binary->setText(QString::fromStdString(*server));
        emit binary->editingFinished();
        auto* flags = child<QLineEdit>("extraFlagsEdit");
        flags->clear();
        QTest::keyClicks(flags, QStringLiteral("--no-warmup -fit off -t 1"));
        emit flags->editingFinished();
        ASSERT_EQ(m_session->extraArgs(),
                  (std::vector<std::string>{"--no-warmup", "-fit", "off", "-t", "1"}));
        child<QSpinBox>("contextSpin")->setValue(1024);
        ASSERT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(1024));
        auto* launch = child<QPushButton>("launchButton");
        ASSERT_TRUE(QTest::qWaitFor([&] { return launch->isEnabled(); }, 30000))
            << launch->toolTip().toStdString();
    }

    // Clicks Launch and waits for Ready (or Failed) through the process's stateChanged.
    bool launchAndWaitForReady() {
        ServerProcess* process = m_window->serverProcess();
        QSignalSpy states(process, &ServerProcess::stateChanged);
        child<QPushButton>("launchButton")->click();
        QDeadlineTimer deadline(60000);
        while (process->state() != State::Ready && process->state() != State::Failed &&
               !deadline.hasExpired()) {
            states.wait(static_cast<int>(std::clamp<qint64>(deadline.remainingTime(), 1, 1000)));
        }
        return process->state() == State::Ready;
    }
};

TEST_F(MainWindowTest, StartsOnTheDefaultCardWithTheStartSettingsAndTheCoresBars) {
    openWindow();
    EXPECT_EQ(m_session->model().cardId, std::string(defaultModelCardId()));
    const QString cardId = QString::fromStdString(std::string(defaultModelCardId()));
    auto* table = child<QTableView>("modelTable");
    ASSERT_NE(table->selectionModel(), nullptr);
    const QModelIndexList selected = table->selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1);
    EXPECT_EQ(selected.front().data(ModelLibraryModel::PathRole).toString(), cardId);
    EXPECT_EQ(m_session->settings(), SizingSession::startSettings(m_session->model().info));
    EXPECT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(4096));
    EXPECT_EQ(child<QSpinBox>("contextSpin")->value(), 4096);
    EXPECT_GT(expectChartMatchesSession("default card"), 1);
}

TEST_F(MainWindowTest, KeyboardShortcutsFindAModelAndSwitchTabs) {
    openWindow();
    m_window->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(m_window.get()));
    QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
    EXPECT_EQ(QApplication::focusWidget(), child<QLineEdit>("modelFilterEdit"));
    auto* tabs = child<QTabWidget>("centralTabs");
    QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
    EXPECT_EQ(tabs->currentWidget()->objectName(), QStringLiteral("liveView"));
    QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
    EXPECT_EQ(tabs->currentIndex(), 0);
    // Ctrl+R on a built-in card starts nothing: there is no file to serve.
    QTest::keyClick(m_window.get(), Qt::Key_R, Qt::ControlModifier);
    EXPECT_EQ(m_window->serverProcess()->state(), ServerProcess::State::Stopped);
}

TEST_F(MainWindowTest, TheContextControlsMoveTheKvBarToTheCoresNumber) {
    openWindow();
    auto* chart = m_window->findChild<MemoryChart*>();
    ASSERT_NE(chart, nullptr);
    const auto [pool, kvAt4096] = kvPoolAndBytes();
    ASSERT_GT(kvAt4096, 0U);
    EXPECT_NEAR(chart->barValueMiB(pool, Component::Kv), toMiB(kvAt4096), kToleranceMiB);

    child<QSpinBox>("contextSpin")->setValue(16384);
    EXPECT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(16384));
    const std::uint64_t kvAt16384 = poolComponentBytes(*m_session->poolUsage(), pool, Component::Kv);
    EXPECT_GT(kvAt16384, kvAt4096);
    EXPECT_NEAR(chart->barValueMiB(pool, Component::Kv), toMiB(kvAt16384), kToleranceMiB);

    auto* panel = m_window->findChild<SettingsPanel*>();
    ASSERT_NE(panel, nullptr);
    const int stop = panel->contextStops().nearestIndex(65536);
    ASSERT_EQ(panel->contextStops().tokensAt(stop), 65536U);
    child<QSlider>("contextSlider")->setValue(stop);
    EXPECT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(65536));
    const std::uint64_t kvAt65536 = poolComponentBytes(*m_session->poolUsage(), pool, Component::Kv);
    EXPECT_GT(kvAt65536, kvAt16384);
    EXPECT_NEAR(chart->barValueMiB(pool, Component::Kv), toMiB(kvAt65536), kToleranceMiB);
    EXPECT_GT(expectChartMatchesSession("-c 65536"), 1);
}

TEST_F(MainWindowTest, ThePickerSwitchesModelsAndEachModelKeepsItsSettings) {
    openWindow();
    ASSERT_NO_FATAL_FAILURE(chooseTinyInPicker());
    const QString name = QString::fromStdString(m_session->model().displayName);
    ASSERT_FALSE(name.isEmpty());
    EXPECT_TRUE(m_window->windowTitle().contains(name)) << m_window->windowTitle().toStdString();
    EXPECT_EQ(m_session->settings(), SizingSession::startSettings(m_session->model().info));

    child<QSpinBox>("contextSpin")->setValue(1536);
    ASSERT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(1536));
    const ServerSettings tinySettings = m_session->settings();

    const QString cardId = QString::fromStdString(std::string(defaultModelCardId()));
    ASSERT_TRUE(activateModelRow(cardId));
    ASSERT_EQ(m_session->model().cardId, std::string(defaultModelCardId()));
    EXPECT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(4096));
    EXPECT_FALSE(m_window->windowTitle().contains(name));

    ASSERT_TRUE(activateModelRow(m_tinyPath));
    ASSERT_EQ(QString::fromStdString(m_session->model().path), m_tinyPath);
    EXPECT_EQ(m_session->settings(), tinySettings);
    EXPECT_EQ(child<QSpinBox>("contextSpin")->value(), 1536);
}

TEST_F(MainWindowTest, ClosingSavesWhatTheNextStartRestores) {
    openWindow();
    ASSERT_NO_FATAL_FAILURE(chooseTinyInPicker());
    // Another APU than the start machine, and a BIOS split other than its profile's own.
    auto* machineCombo = child<QComboBox>("machineCombo");
    const int strix = machineCombo->findData(QStringLiteral("strix-halo-128gb"));
    ASSERT_GE(strix, 0);
    machineCombo->setCurrentIndex(strix);
    ASSERT_EQ(m_session->machine().id, "strix-halo-128gb");
    auto* carveOut = child<QComboBox>("carveOutCombo");
    int other = -1;
    for (int i = 0; i < carveOut->count() && other < 0; ++i) {
        other = i != carveOut->currentIndex() && carveOut->itemData(i).isValid() ? i : -1;
    }
    ASSERT_GE(other, 0) << "the APU's BIOS offers more than one split";
    carveOut->setCurrentIndex(other);
    const std::optional<std::uint64_t> carveOutBytes = m_window->currentAppSettings().carveOutBytes;
    ASSERT_TRUE(carveOutBytes.has_value()) << "a BIOS split was chosen in the panel";
    const Machine machine = m_session->machine();
    child<QSpinBox>("marginSpin")->setValue(2048);
    ASSERT_EQ(m_session->marginBytes(), 2048 * kMiB);
    // A size of our own (the window's minimum width wins if it is wider).
    m_window->resize(QSize(1234, 777).expandedTo(m_window->minimumSizeHint()) + QSize(20, 20));
    const QSize size = m_window->size();
    ASSERT_EQ(size.height(), std::max(777, m_window->minimumSizeHint().height()) + 20);

    closeWindow();
    EXPECT_FALSE(m_window->isVisible());
    m_window.reset();
    openSettings();
    const AppSettingsLoad loaded = openWindow();
    EXPECT_TRUE(loaded.message.isEmpty()) << loaded.message.toStdString();
    EXPECT_EQ(loaded.settings.lastModel, m_tinyPath);
    EXPECT_EQ(QString::fromStdString(m_session->model().path), m_tinyPath);
    EXPECT_EQ(loaded.settings.carveOutBytes, carveOutBytes);
    EXPECT_EQ(m_window->currentAppSettings().carveOutBytes, carveOutBytes);
    EXPECT_EQ(loaded.settings.machineId, QStringLiteral("strix-halo-128gb"));
    EXPECT_EQ(m_window->currentAppSettings().machineId, QStringLiteral("strix-halo-128gb"));
    EXPECT_EQ(m_session->machine(), machine);
    EXPECT_EQ(loaded.settings.marginMiB, 2048U);
    EXPECT_EQ(m_session->marginBytes(), 2048 * kMiB);
    EXPECT_EQ(m_window->size(), size);
    EXPECT_EQ(child<QSpinBox>("marginSpin")->value(), 2048) << "the panel shows the restored margin";
}

TEST_F(MainWindowTest, ACorruptSettingsFileIsMovedAsideAndTheWindowOpensOnDefaults) {
    const QByteArray garbage("[model\nlast=x\n\x01\x02\xff", 17);
    {
        QFile file(m_settingsPath);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(garbage);
    }
    openSettings();
    const AppSettingsLoad loaded = openWindow();
    ASSERT_FALSE(loaded.message.isEmpty());
    const QStringList aside = QDir(m_directory.path()).entryList({QStringLiteral("settings.ini.corrupt-*")});
    ASSERT_EQ(aside.size(), 1);
    EXPECT_TRUE(loaded.message.contains(aside.first())) << loaded.message.toStdString();
    EXPECT_EQ(m_window->statusBar()->currentMessage(), loaded.message);
    EXPECT_EQ(m_session->model().cardId, std::string(defaultModelCardId()));
    EXPECT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(4096));
    EXPECT_EQ(m_session->marginBytes(), SizingSession::kDefaultMarginBytes);
}

// The end-to-end test: everything from the GUI, the real llama-server, real completions.
TEST_F(MainWindowTest, LaunchesFromTheGuiServesCompletionsShowsThemLiveAndStops) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    openWindow();
    ASSERT_NO_FATAL_FAILURE(chooseTinyInPicker());
    ASSERT_NO_FATAL_FAILURE(prepareLaunch());
    ServerProcess* process = m_window->serverProcess();
    ASSERT_TRUE(launchAndWaitForReady()) << process->log();

    auto* tabs = child<QTabWidget>("centralTabs");
    auto* live = m_window->findChild<LiveView*>(QStringLiteral("liveView"));
    ASSERT_NE(live, nullptr);
    EXPECT_EQ(tabs->currentWidget(), live);

    // Two completions at a time, again whenever both are answered, until the live view shows
    // tokens/s above zero, RSS samples and the predicted-versus-actual rows.
    QNetworkAccessManager network;
    int inFlight = 0;
    int answeredOk = 0;
    QObject::connect(&network, &QNetworkAccessManager::finished, &network, [&](QNetworkReply* reply) {
        --inFlight;
        answeredOk += reply->error() == QNetworkReply::NoError ? 1 : 0;
        reply->deleteLater();
    });
    QNetworkRequest request(process->baseUrl().resolved(QUrl(QStringLiteral("/completion"))));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    const auto shown = [&] {
        return answeredOk >= 2 && live->throughputSampleCount() > 0 && live->peakTotalTokensPerSecond() > 0 &&
               live->memorySampleCount() > 0 && live->comparisonTable()->rowCount() > 0;
    };
    QDeadlineTimer deadline(60000);
    int sent = 0;
    while (!shown() && !deadline.hasExpired()) {
        if (inFlight == 0) {
            for (const char* prompt : {"The llama walked", "Memory is"}) {
                const QJsonObject body{{QStringLiteral("prompt"), QString::fromLatin1(prompt)},
                                       {QStringLiteral("n_predict"), 24}};
                network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
                ++inFlight;
                ++sent;
            }
        }
        (void)QTest::qWaitFor([&] { return inFlight == 0 || shown(); }, 1000);
    }
    EXPECT_GE(answeredOk, 2) << "of " << sent << " sent";
    EXPECT_GT(live->throughputSampleCount(), 0);
    EXPECT_GT(live->peakTotalTokensPerSecond(), 0.0);
    EXPECT_GT(live->memorySampleCount(), 0);
    EXPECT_GT(live->comparisonTable()->rowCount(), 0);
    EXPECT_TRUE(QTest::qWaitFor([&] { return inFlight == 0; }, 30000));

    QSignalSpy states(process, &ServerProcess::stateChanged);
    auto* stop = child<QPushButton>("stopButton");
    ASSERT_TRUE(stop->isEnabled());
    stop->click();
    ASSERT_TRUE(QTest::qWaitFor([&] { return process->state() == State::Stopped; }, 20000))
        << ServerProcess::stateName(process->state());
    EXPECT_GE(states.count(), 1);
    EXPECT_TRUE(child<QPushButton>("launchButton")->isEnabled());
}

TEST_F(MainWindowTest, ClosingTheWindowStopsARunningServer) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    openWindow();
    ASSERT_NO_FATAL_FAILURE(chooseTinyInPicker());
    ASSERT_NO_FATAL_FAILURE(prepareLaunch());
    ServerProcess* process = m_window->serverProcess();
    ASSERT_TRUE(launchAndWaitForReady()) << process->log();
    const qint64 pid = process->processId();
    ASSERT_GT(pid, 0);
    ASSERT_EQ(::kill(static_cast<pid_t>(pid), 0), 0) << "the server runs";

    closeWindow();
    EXPECT_EQ(process->state(), State::Stopped) << ServerProcess::stateName(process->state());
    errno = 0;
    EXPECT_EQ(::kill(static_cast<pid_t>(pid), 0), -1) << "pid " << pid << " still exists";
    EXPECT_EQ(errno, ESRCH);
}

} // namespace
} // namespace llamafit

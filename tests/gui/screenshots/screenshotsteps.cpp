// The states the screenshots show, each reached through the window's widgets; see
// screenshotdriver.h.
#include "tests/gui/screenshots/screenshotdriver.h"

#include "core/machine/poolusage.h"
#include "core/model/modelspec.h"
#include "core/system/benchplan.h"
#include "ui/bench/benchmarkchart.h"
#include "ui/bench/benchmarkdialog.h"
#include "ui/charts/memorychart.h"
#include "ui/cluster/clusterpanel.h"
#include "ui/cluster/tensorsplitbar.h"
#include "ui/launch/failuredialog.h"
#include "ui/launch/launchpanel.h"
#include "ui/live/comparisontable.h"
#include "ui/live/liveview.h"
#include "ui/live/throughputchart.h"
#include "ui/mainwindow.h"
#include "ui/sizingsession.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPainter>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

#include <qcustomplot.h>

#include <algorithm>

#include <functional>

namespace llamafit {

namespace {

QString verdictOf(const SizingSession& session) {
    if (!session.estimate()) {
        return QString::fromStdString(session.estimate().error().message);
    }
    return session.poolUsage() ? QString::fromLatin1(fitVerdictName(session.poolUsage()->verdict).data())
                               : QStringLiteral("no pool usage");
}

} // namespace

Result<bool> ScreenshotDriver::defaultCard() {
    if (m_session->model().cardId != defaultModelCardId() || m_session->settings().contextTokens != 4096U) {
        return screenshotFailure("01-default-card",
                                 QStringLiteral("the window did not start on the default card at -c 4096"));
    }
    return saveWindow(QStringLiteral("01-default-card.png"));
}

Result<bool> ScreenshotDriver::fits() {
    auto* context = child<QSpinBox>("contextSpin");
    auto* typeV = child<QComboBox>("cacheTypeVCombo");
    const int q8 = typeV ? typeV->findData(static_cast<int>(GgmlType::Q8_0)) : -1;
    if (context == nullptr || q8 < 0) {
        return screenshotFailure("02-fits", QStringLiteral("no contextSpin or no q8_0 in cacheTypeVCombo"));
    }
    if (auto changed = changeAndWaitForChart(
            [&] {
                context->setValue(65536);
                typeV->setCurrentIndex(q8);
            },
            "02-fits");
        !changed) {
        return changed;
    }
    if (!m_session->poolUsage() || m_session->poolUsage()->verdict != FitVerdict::Fits) {
        return screenshotFailure("02-fits",
                                 QStringLiteral("-c 65536 -ctv q8_0 on the EVO-X2 is not \"fits\": %1")
                                     .arg(verdictOf(*m_session)));
    }
    return saveWindow(QStringLiteral("02-fits.png"));
}

Result<bool> ScreenshotDriver::doesNotFit() {
    if (auto chosen = chooseMachine(QStringLiteral("rtx-4060-8gb")); !chosen) {
        return chosen;
    }
    if (!m_session->poolUsage() || m_session->poolUsage()->verdict != FitVerdict::DoesNotFit) {
        return screenshotFailure(
            "03-does-not-fit", QStringLiteral("the 35B card on the RTX 4060 8 GB is not \"does-not-fit\": %1")
                                   .arg(verdictOf(*m_session)));
    }
    return saveWindow(QStringLiteral("03-does-not-fit.png"));
}

Result<bool> ScreenshotDriver::prepareLaunch(const QString& binary, std::uint32_t contextTokens) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("LLAMAFIT_NO_POPULATE"), QStringLiteral("1"));
    m_window->serverProcess()->setEnvironment(environment);
    auto* binaryEdit = child<QLineEdit>("serverBinaryEdit");
    auto* flags = child<QLineEdit>("extraFlagsEdit");
    auto* launch = child<QPushButton>("launchButton");
    if (binaryEdit == nullptr || flags == nullptr || launch == nullptr) {
        return screenshotFailure("launch",
                                 QStringLiteral("no serverBinaryEdit, extraFlagsEdit or launchButton"));
    }
    binaryEdit->setText(binary);
    emit binaryEdit->editingFinished();
    flags->setText(QStringLiteral("--no-warmup -fit off -t 1"));
    emit flags->editingFinished();
    ServerSettings settings = m_session->settings();
    settings.contextTokens = contextTokens;
    m_session->setSettings(settings);
    if (!QTest::qWaitFor([launch] { return launch->isEnabled(); }, 30000)) {
        return screenshotFailure("launch",
                                 QStringLiteral("Launch stayed disabled: %1").arg(launch->toolTip()));
    }
    return true;
}

Result<bool> ScreenshotDriver::launchAndWaitFor(ServerProcess::State state, const char* what) {
    ServerProcess* process = m_window->serverProcess();
    child<QPushButton>("launchButton")->click();
    const bool reached = QTest::qWaitFor(
        [&] { return process->state() == state || process->state() == ServerProcess::State::Failed; }, 60000);
    if (!reached || process->state() != state) {
        return screenshotFailure(what,
                                 QStringLiteral("llama-server is %1, not %2; log:\n%3")
                                     .arg(QString::fromLatin1(ServerProcess::stateName(process->state())),
                                          QString::fromLatin1(ServerProcess::stateName(state)),
                                          QString::fromStdString(process->log())));
    }
    return true;
}

Result<bool> ScreenshotDriver::stopServer() {
    ServerProcess* process = m_window->serverProcess();
    if (process->state() == ServerProcess::State::Stopped ||
        process->state() == ServerProcess::State::Failed) {
        return true;
    }
    child<QPushButton>("stopButton")->click();
    if (!QTest::qWaitFor([process] { return process->state() == ServerProcess::State::Stopped; }, 20000)) {
        return screenshotFailure("stop", QStringLiteral("llama-server did not stop in 20 s"));
    }
    return true;
}

Result<bool> ScreenshotDriver::running() {
    const std::function<Result<bool>()> steps[] = {
        [this] { return chooseMachine(QStringLiteral("cpu-only")); },
        [this] { return chooseModelInPicker(m_tinyPath); }, [this] { return prepareLaunch(m_server, 1024); },
        [this] { return launchAndWaitFor(ServerProcess::State::Ready, "04-running"); }};
    for (const auto& step : steps) {
        if (auto done = step(); !done) {
            return done;
        }
    }
    auto* live = m_window->findChild<LiveView*>(QStringLiteral("liveView"));
    if (live == nullptr) {
        return screenshotFailure("04-running", QStringLiteral("no liveView"));
    }
    // Completions two at a time until the charts have a few seconds of samples to draw.
    QNetworkAccessManager network;
    int inFlight = 0;
    QObject::connect(&network, &QNetworkAccessManager::finished, &network, [&](QNetworkReply* reply) {
        --inFlight;
        reply->deleteLater();
    });
    QNetworkRequest request(
        m_window->serverProcess()->baseUrl().resolved(QUrl(QStringLiteral("/completion"))));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    const auto enough = [live] {
        return live->throughputSampleCount() >= 8 && live->peakTotalTokensPerSecond() > 0 &&
               live->memorySampleCount() >= 8 && live->comparisonTable()->rowCount() > 0;
    };
    QDeadlineTimer deadline(45000);
    while (!enough() && !deadline.hasExpired()) {
        if (inFlight == 0) {
            for (const char* prompt : {"The llama walked", "Memory is"}) {
                const QJsonObject body{{QStringLiteral("prompt"), QString::fromLatin1(prompt)},
                                       {QStringLiteral("n_predict"), 48}};
                network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
                ++inFlight;
            }
        }
        (void)QTest::qWaitFor([&] { return inFlight == 0 || enough(); }, 1000);
    }
    if (!enough()) {
        return screenshotFailure("04-running",
                                 QStringLiteral("the live view got %1 tokens/s and %2 memory samples in 45 s")
                                     .arg(live->throughputSampleCount())
                                     .arg(live->memorySampleCount()));
    }
    // The refresh timer draws what arrived: one more pass, then the throughput plot's replot.
    QSignalSpy replotted(live->throughputChart()->plot(), &QCustomPlot::afterReplot);
    const int refreshes = live->refreshCount();
    if (!QTest::qWaitFor([&] { return live->refreshCount() > refreshes && replotted.count() > 0; }, 5000)) {
        return screenshotFailure("04-running",
                                 QStringLiteral("the live view did not repaint its samples in 5 s"));
    }
    (void)QTest::qWaitFor([&] { return inFlight == 0; }, 30000);
    if (auto saved = saveWindow(QStringLiteral("04-running.png")); !saved) {
        return saved;
    }
    return stopServer();
}

Result<bool> ScreenshotDriver::failureDiagnosis() {
    if (auto prepared = prepareLaunch(m_limitedServer, 2000000); !prepared) {
        return prepared;
    }
    if (auto launched = launchAndWaitFor(ServerProcess::State::Failed, "05-failure-diagnosis"); !launched) {
        return launched;
    }
    FailureDialog* dialog = m_window->findChild<LaunchPanel*>()->failureDialog();
    if (dialog == nullptr ||
        m_window->serverProcess()->failure().reason != LaunchFailureReason::AllocationFailed) {
        return screenshotFailure("05-failure-diagnosis",
                                 QStringLiteral("no failure dialog for an allocation failure; log:\n%1")
                                     .arg(QString::fromStdString(m_window->serverProcess()->log())));
    }
    if (!QTest::qWaitForWindowExposed(dialog, 10000) ||
        dialog->findChildren<QPushButton*>(QRegularExpression(QStringLiteral("^fixButton_"))).isEmpty()) {
        return screenshotFailure("05-failure-diagnosis",
                                 QStringLiteral("the failure dialog shows no fix buttons"));
    }
    return saveOverWindow(dialog, QStringLiteral("05-failure-diagnosis.png"));
}

// The tiny model benchmarked by the real llama-bench from Server > Benchmark, measured against
// predicted, the dialog over the window.
Result<bool> ScreenshotDriver::benchmark() {
    if (FailureDialog* failure = m_window->findChild<LaunchPanel*>()->failureDialog(); failure != nullptr) {
        failure->close();
    }
    auto* action = m_window->findChild<QAction*>(QStringLiteral("benchmarkAction"));
    if (action == nullptr) {
        return screenshotFailure("07-benchmark", QStringLiteral("no benchmarkAction"));
    }
    action->trigger();
    auto* dialog = m_window->findChild<BenchmarkDialog*>();
    if (dialog == nullptr || !QTest::qWaitForWindowExposed(dialog, 10000)) {
        return screenshotFailure("07-benchmark", QStringLiteral("Server > Benchmark opened no dialog"));
    }
    dialog->findChild<QLineEdit*>(QStringLiteral("benchProgramEdit"))
        ->setText(defaultLlamaBenchProgram(m_server));
    dialog->findChild<QLineEdit*>(QStringLiteral("benchDepthsEdit"))->setText(QStringLiteral("0,256,512"));
    dialog->findChild<QSpinBox*>(QStringLiteral("benchPromptSpin"))->setValue(64);
    dialog->findChild<QSpinBox*>(QStringLiteral("benchGenerationSpin"))->setValue(32);
    dialog->findChild<QSpinBox*>(QStringLiteral("benchRepetitionsSpin"))->setValue(2);
    QSignalSpy shown(dialog, &BenchmarkDialog::recordShown);
    if (!dialog->startBenchmark()) {
        return screenshotFailure("07-benchmark",
                                 QStringLiteral("the benchmark did not start: %1")
                                     .arg(QString::fromStdString(dialog->run().error().message)));
    }
    if (!QTest::qWaitFor(
            [&] { return shown.count() > 0 || dialog->run().state() == BenchmarkRun::State::Failed; },
            60000) ||
        shown.count() == 0) {
        return screenshotFailure("07-benchmark",
                                 QStringLiteral("llama-bench did not finish in 60 s: %1")
                                     .arg(QString::fromStdString(dialog->run().error().message)));
    }
    QSignalSpy replotted(dialog->chart()->plot(BenchmarkChart::Kind::Generation), &QCustomPlot::afterReplot);
    (void)replotted.wait(2000);
    auto saved = saveOverWindow(dialog, QStringLiteral("07-benchmark.png"));
    dialog->close();
    return saved;
}

// The default card on the RTX 4060 8 GB -- the plan that does not fit in 03-does-not-fit -- spread
// over two ggml-rpc-servers on this machine's loopback with 24105 MiB free each (what
// `ggml-rpc-server -d CPU` reports on the test machine), entered the way a user does without
// servers running: Add host twice, the free memory typed in. Then "Best split", so the picture
// shows the solver's -ts with layers on all three devices, its line, and the network line.
Result<bool> ScreenshotDriver::clusterView() {
    if (auto opened = openWindow(); !opened) {
        return opened;
    }
    if (auto chosen = chooseMachine(QStringLiteral("rtx-4060-8gb")); !chosen) {
        return chosen;
    }
    auto* dock = child<QDockWidget>("clusterDock");
    auto* add = child<QPushButton>("addHostButton");
    auto* best = child<QPushButton>("bestSplitButton");
    auto* table = child<QTableWidget>("clusterHostTable");
    auto* bar = child<TensorSplitBar>("tensorSplitBar");
    auto* network = child<QLabel>("networkLabel");
    auto* bestLabel = child<QLabel>("bestSplitLabel");
    if (dock == nullptr || add == nullptr || best == nullptr || table == nullptr || bar == nullptr ||
        network == nullptr || bestLabel == nullptr) {
        return screenshotFailure("cluster-view",
                                 QStringLiteral("no clusterDock, addHostButton, bestSplitButton, "
                                                "clusterHostTable, tensorSplitBar, networkLabel or "
                                                "bestSplitLabel"));
    }
    dock->raise();
    // The cluster dock taller than the model list above it, so its plan lines are in view.
    m_window->resizeDocks({dock}, {m_window->height() * 3 / 4}, Qt::Vertical);
    const auto entered = changeAndWaitForChart(
        [&] {
            add->click();
            table->item(0, ClusterPanel::kFreeColumn)->setText(QStringLiteral("24105"));
            add->click();
            table->item(1, ClusterPanel::kFreeColumn)->setText(QStringLiteral("24105"));
        },
        "cluster-view");
    if (!entered) {
        return entered;
    }
    const std::vector<RpcHost> expected{{"127.0.0.1:50052", 24105ULL << 20},
                                        {"127.0.0.1:50053", 24105ULL << 20}};
    if (m_session->rpcHosts() != expected || !m_session->poolUsage()) {
        return screenshotFailure(
            "cluster-view", QStringLiteral("the two hosts are not planned: %1").arg(verdictOf(*m_session)));
    }
    if (const auto split = changeAndWaitForChart([&] { best->click(); }, "cluster-view"); !split) {
        return split;
    }
    const std::vector<double>& tensorSplit = m_session->settings().tensorSplit;
    if (tensorSplit.size() != 3 ||
        std::ranges::any_of(tensorSplit, [](double share) { return share <= 0; }) ||
        !m_session->poolUsage() || m_session->poolUsage()->verdict == FitVerdict::DoesNotFit) {
        return screenshotFailure("cluster-view",
                                 QStringLiteral("Best split did not put layers on all three devices "
                                                "and fit: %1 (%2)")
                                     .arg(bestLabel->text(), verdictOf(*m_session)));
    }
    if (!QTest::qWaitForWindowExposed(bar, 10000) || bar->handleCount() != 2 || network->isHidden() ||
        bestLabel->isHidden()) {
        return screenshotFailure("cluster-view",
                                 QStringLiteral("the -ts bar, the best split's line or the network line "
                                                "is not shown"));
    }
    auto* chart = m_window->findChild<MemoryChart*>();
    if (chart == nullptr || chart->hostLabels().size() != 3) {
        return screenshotFailure("cluster-view",
                                 QStringLiteral("the memory chart does not show three hosts"));
    }
    if (auto* scroll = qobject_cast<QScrollArea*>(dock->widget()); scroll != nullptr) {
        scroll->ensureWidgetVisible(network);
    }
    return saveWindow(QStringLiteral("cluster-view.png"));
}

// `dialog` composited over the window where it stands (centred when it stands outside), the
// window dimmed behind it.
Result<bool> ScreenshotDriver::saveOverWindow(QWidget* dialog, const QString& name) const {
    QCoreApplication::sendPostedEvents(); // the dialog's pending layout, before it is grabbed
    QCoreApplication::processEvents();
    // The dialog composited over the window where it stands (centred when it stands outside).
    QImage picture = m_window->grab().toImage();
    const QImage dialogImage = dialog->grab().toImage();
    QPoint at = dialog->mapToGlobal(QPoint(0, 0)) - m_window->mapToGlobal(QPoint(0, 0));
    if (!picture.rect().contains(QRect(at, dialogImage.size()))) {
        at = picture.rect().center() - dialogImage.rect().center();
    }
    QPainter painter(&picture);
    QColor shade = m_window->palette().color(QPalette::Shadow); // the window dimmed behind the dialog
    shade.setAlpha(60);
    painter.fillRect(picture.rect(), shade);
    painter.drawImage(at, dialogImage);
    painter.setPen(m_window->palette().color(QPalette::Highlight));
    painter.drawRect(QRect(at, dialogImage.size()).adjusted(-1, -1, 0, 0));
    painter.end();
    return save(picture, name);
}

Result<bool> ScreenshotDriver::screenSize(QSize size, const char* name) {
    if (auto opened = openWindow(size); !opened) {
        return opened;
    }
    return saveWindow(QString::fromLatin1(name));
}

} // namespace llamafit

// The screenshot steps; see screenshotdriver.h.
#include "tests/gui/screenshots/screenshotdriver.h"

#include "core/machine/machineprofile.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/sweepchart.h"
#include "ui/library/modellibrarymodel.h"
#include "ui/library/modelpickerpanel.h"
#include "ui/mainwindow.h"
#include "ui/sizingsession.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <qcustomplot.h>

namespace llamafit {

namespace {

constexpr int kMinimumWidth = 1200;

// Waits until `done()` or `timeoutMs`, processing events (QTest::qWaitFor: no sleeps).
bool waitFor(const std::function<bool()>& done, int timeoutMs) {
    return QTest::qWaitFor(done, timeoutMs);
}

} // namespace

ScreenshotDriver::ScreenshotDriver(QString outputFolder) : m_outputFolder(std::move(outputFolder)) {}

ScreenshotDriver::~ScreenshotDriver() {
    closeWindow();
}

Result<bool> ScreenshotDriver::prepare() {
    if (!m_directory.isValid() || !QDir().mkpath(m_outputFolder) ||
        !QDir(m_directory.path()).mkpath(QStringLiteral("lib"))) {
        return screenshotFailure(
            "prepare", QStringLiteral("cannot create %1 or a temporary folder").arg(m_outputFolder));
    }
    m_tinyPath = m_directory.filePath(QStringLiteral("lib/tiny-llama.gguf"));
    if (const auto written = test::writeTinyModel(m_tinyPath.toStdString()); !written) {
        return screenshotFailure("prepare", QString::fromStdString(written.error().message));
    }
    const auto server = test::findLlamaServer();
    if (!server) {
        return screenshotFailure("prepare", QString::fromStdString(server.error().message));
    }
    m_server = QString::fromStdString(*server);
    // tests/gui/launch/failuredialog_test.cpp's approach: 500 MiB of address space cannot hold
    // the KV cache of 2000000 cells next to the server's own mappings.
    m_limitedServer = m_directory.filePath(QStringLiteral("llama-server-limited"));
    QFile script(m_limitedServer);
    if (!script.open(QIODevice::WriteOnly)) {
        return screenshotFailure("prepare", script.errorString());
    }
    script.write(QStringLiteral("#!/bin/sh\nexec /usr/bin/prlimit --as=%1 '%2' \"$@\"\n")
                     .arg(500ULL * 1024 * 1024)
                     .arg(m_server)
                     .toUtf8());
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return true;
}

Result<bool> ScreenshotDriver::openWindow(QSize size) {
    closeWindow();
    m_settings = std::make_unique<QSettings>(m_directory.filePath(QStringLiteral("settings.ini")),
                                             QSettings::IniFormat);
    m_settings->clear();
    m_session = std::make_unique<SizingSession>(*findBuiltinMachine(defaultMachineId()));
    AppSettings values;
    values.machineId = QString::fromStdString(std::string(defaultMachineId()));
    MainWindowOptions options;
    options.libraryRoots = LibraryRoots{{m_directory.filePath(QStringLiteral("lib")).toStdString(),
                                         LibraryRootKind::UserFolder, "Test library"}};
    options.detectDevices = false;
    options.profileFolder = m_directory.filePath(QStringLiteral("profiles"));
    options.benchmarkFolder = m_directory.filePath(QStringLiteral("benchmarks"));
    m_window = std::make_unique<MainWindow>(m_session.get(), m_settings.get(), values, options);
    m_window->resize(size);
    m_window->show();
    if (!QTest::qWaitForWindowExposed(m_window.get(), 10000)) {
        return screenshotFailure("open-window", QStringLiteral("the window was not exposed in 10 s"));
    }
    if (auto painted = changeAndWaitForChart([] {}, "open-window"); !painted) {
        return painted;
    }
    if (m_window->size() != size) { // its minimum is larger: the docks and charts do not fit
        return screenshotFailure("open-window", QStringLiteral("the window is %1x%2, not %3x%4")
                                                    .arg(m_window->width())
                                                    .arg(m_window->height())
                                                    .arg(size.width())
                                                    .arg(size.height()));
    }
    return true;
}

void ScreenshotDriver::closeWindow() {
    if (!m_window) {
        return;
    }
    ServerProcess* process = m_window->serverProcess();
    m_window->close();
    waitFor(
        [process] {
            return process->state() == ServerProcess::State::Stopped ||
                   process->state() == ServerProcess::State::Failed;
        },
        20000);
    m_window.reset();
    m_session.reset();
    m_settings.reset();
}

Result<bool> ScreenshotDriver::changeAndWaitForChart(const std::function<void()>& change, const char* what) {
    auto* chart = m_window->findChild<MemoryChart*>();
    if (chart == nullptr) {
        return screenshotFailure(what, QStringLiteral("no MemoryChart in the window"));
    }
    QSignalSpy replotted(chart->plot(), &QCustomPlot::afterReplot);
    change();
    // A change that does not touch the chart queues no replot of its own: ask for one, so the
    // wait ends on a picture that is current either way.
    chart->plot()->replot(QCustomPlot::rpQueuedReplot);
    if (replotted.count() == 0 && !replotted.wait(10000)) {
        return screenshotFailure(what, QStringLiteral("the memory chart did not replot in 10 s"));
    }
    // The sweep chart sweeps on a worker thread, started by a zero-timer: the picture waits for
    // its newest sweep.
    QCoreApplication::processEvents();
    if (auto* sweep = m_window->findChild<SweepChart*>();
        sweep && !waitFor([sweep] { return !sweep->sweeping(); }, 60000)) {
        return screenshotFailure(what, QStringLiteral("the sweep chart did not finish its sweep in 60 s"));
    }
    // Layout requests and updates the replot posted: handled before the picture is grabbed.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    return true;
}

Result<bool> ScreenshotDriver::save(const QImage& image, const QString& name) const {
    const QString path = QDir(m_outputFolder).filePath(name);
    if (image.isNull() || !image.save(path, "PNG")) {
        return screenshotFailure("save", QStringLiteral("could not write %1").arg(path));
    }
    const QImage back(path);
    if (back.isNull() || back.width() < kMinimumWidth || QFileInfo(path).size() == 0) {
        return screenshotFailure("save", QStringLiteral("%1 is %2 px wide (at least %3 wanted)")
                                             .arg(path)
                                             .arg(back.width())
                                             .arg(kMinimumWidth));
    }
    std::printf("wrote %s (%dx%d)\n", qPrintable(path), back.width(), back.height());
    return true;
}

Result<bool> ScreenshotDriver::saveWindow(const QString& name) const {
    return save(m_window->grab().toImage(), name);
}

Result<bool> ScreenshotDriver::chooseMachine(const QString& id) {
    auto* combo = child<QComboBox>("machineCombo");
    const int index = combo ? combo->findData(id) : -1;
    if (index < 0) {
        return screenshotFailure("machine", QStringLiteral("no machine %1 in machineCombo").arg(id));
    }
    return changeAndWaitForChart([&] { combo->setCurrentIndex(index); }, "machine");
}

Result<bool> ScreenshotDriver::chooseModelInPicker(const QString& path) {
    auto* picker = m_window->findChild<ModelPickerPanel*>();
    auto* table = child<QTableView>("modelTable");
    if (picker == nullptr || table == nullptr) {
        return screenshotFailure("picker", QStringLiteral("no model picker"));
    }
    if (!waitFor([picker] { return !picker->isScanning(); }, 30000)) {
        return screenshotFailure("picker", QStringLiteral("the library scan did not finish in 30 s"));
    }
    const QModelIndexList rows = table->model()->match(
        table->model()->index(0, 0), ModelLibraryModel::PathRole, path, 1, Qt::MatchExactly);
    if (rows.isEmpty()) {
        return screenshotFailure("picker", QStringLiteral("%1 is not listed").arg(path));
    }
    return changeAndWaitForChart(
        [&] {
            table->scrollTo(rows.front());
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                              table->visualRect(rows.front()).center());
        },
        "picker");
}

Error screenshotFailure(const char* state, const QString& why) {
    return makeError("screenshots." + std::string(state), why.toStdString());
}

} // namespace llamafit

#pragma once
// A gtest fixture for the app-level tests: the real MainWindow (offscreen) on the seed's machine,
// with a temporary model library holding the tiny real-weight GGUF (writeTinyModel), a
// temporary QSettings INI file, a temporary profile folder and no device discovery. Finds the
// window's widgets by objectName, chooses models through the picker's table, and waits on
// signals with a deadline (QSignalSpy / QTest::qWaitFor, never sleeps). A window that started
// llama-server is closed (which stops the server) and the stop is awaited in TearDown.
// Used by mainwindow_test.cpp. Thread: GUI thread.

#include "core/library/modellocations.h"
#include "core/machine/machineprofile.h"
#include "core/system/serverprocess.h"
#include "tests/support/modelfiles.h"
#include "ui/appsettings.h"
#include "ui/charts/memorychart.h"
#include "ui/library/modellibrarymodel.h"
#include "ui/library/modelpickerpanel.h"
#include "ui/mainwindow.h"
#include "ui/sizingsession.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

namespace llamafit::test {

class MainWindowFixture : public ::testing::Test {
  protected:
    using State = ServerProcess::State;

    void SetUp() override {
        ASSERT_TRUE(m_directory.isValid());
        ASSERT_TRUE(QDir(m_directory.path()).mkpath(QStringLiteral("lib")));
        m_tinyPath = m_directory.filePath(QStringLiteral("lib/app-tiny.gguf"));
        const auto written = writeTinyModel(m_tinyPath.toStdString());
        ASSERT_TRUE(written.ok()) << written.error().message;
        m_settingsPath = m_directory.filePath(QStringLiteral("settings.ini"));
        openSettings();
    }

    void TearDown() override {
        if (m_window) {
            closeWindow();
        }
        m_window.reset();
        m_session.reset();
        m_settings.reset();
    }

    // A fresh QSettings on the test's INI file (what a restart of the app reads).
    void openSettings() {
        m_settings.reset();
        m_settings = std::make_unique<QSettings>(m_settingsPath, QSettings::IniFormat);
    }

    // A new session and window from the settings file, as app/gui/main.cpp builds them; shown
    // at `size` when given (resized before the first show, as a window restored or placed on a
    // small screen), else at the size the window picks for the screen.
    AppSettingsLoad openWindow(std::optional<QSize> size = std::nullopt) {
        AppSettingsLoad loaded = loadAppSettings(*m_settings);
        m_window.reset();
        m_session = std::make_unique<SizingSession>(*findBuiltinMachine(defaultMachineId()));
        MainWindowOptions options;
        options.libraryRoots = LibraryRoots{{m_directory.filePath(QStringLiteral("lib")).toStdString(),
                                             LibraryRootKind::UserFolder, "Test library"}};
        options.detectDevices = false;
        options.profileFolder = m_directory.filePath(QStringLiteral("profiles"));
        m_window = std::make_unique<MainWindow>(m_session.get(), m_settings.get(), loaded.settings, options);
        if (size) {
            m_window->resize(*size);
        }
        m_window->show();
        if (!loaded.message.isEmpty()) {
            m_window->showStatus(loaded.message);
        }
        return loaded;
    }

    // Closes the window (closeEvent saves and stops the server) and waits for the server to stop.
    void closeWindow() {
        ServerProcess* process = m_window->serverProcess();
        QSignalSpy states(process, &ServerProcess::stateChanged);
        m_window->close();
        QDeadlineTimer deadline(20000);
        while (process->state() != State::Stopped && process->state() != State::Failed &&
               !deadline.hasExpired()) {
            states.wait(static_cast<int>(std::clamp<qint64>(deadline.remainingTime(), 1, 1000)));
        }
    }

    template <typename T> T* child(const char* name) const {
        T* widget = m_window->findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(widget, nullptr) << name;
        return widget;
    }

    // Waits for the picker's background scan of the test library to end.
    bool waitForScan() {
        auto* picker = m_window->findChild<ModelPickerPanel*>();
        if (picker == nullptr) {
            return false;
        }
        QSignalSpy finished(picker, &ModelPickerPanel::scanFinished);
        return !picker->isScanning() || finished.wait(30000);
    }

    // The modelTable row (in the view's sorted, filtered model) of a path or card id; -1 if none.
    int tableRowOf(const QString& pathOrCardId) const {
        auto* table = m_window->findChild<QTableView*>(QStringLiteral("modelTable"));
        const QAbstractItemModel* model = table->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->index(row, 0).data(ModelLibraryModel::PathRole).toString() == pathOrCardId) {
                return row;
            }
        }
        return -1;
    }

    // Writes the spec tests/data/shapes/`shape` as a GGUF at `relativePath` under the test folder
    // (sparse when the spec has no weights) and returns its path; fails the test if it cannot.
    QString writeShape(const std::string& shape, const QString& relativePath) {
        const QString path = m_directory.filePath(relativePath);
        const auto spec = test::loadModelSpecFile(test::shapesDirectory() + "/" + shape);
        EXPECT_TRUE(spec.ok()) << spec.error().message;
        EXPECT_TRUE(QDir().mkpath(QFileInfo(path).path()));
        if (spec.ok()) {
            const auto written = test::writeSpecAsGguf(*spec, path.toStdString());
            EXPECT_TRUE(written.ok()) << written.error().message;
        }
        return path;
    }

    // Clicks the model's row in the picker's table, which chooses it as a user moving the selection.
    void clickModelRow(const QString& pathOrCardId) {
        auto* table = m_window->findChild<QTableView*>(QStringLiteral("modelTable"));
        const QModelIndex index = table->model()->index(tableRowOf(pathOrCardId), ModelLibraryModel::Name);
        table->scrollTo(index);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
    }

    // The MiB the memory chart draws for `owner`'s buffers over every pool.
    double chartOwnerMiB(BufferOwner owner) const {
        auto* chart = m_window->findChild<MemoryChart*>();
        double drawn = 0;
        for (std::size_t pool = 0; chart != nullptr && pool < m_session->machine().pools.size(); ++pool) {
            drawn += chart->ownerBarValueMiB(pool, owner);
        }
        return drawn;
    }

    // Double-clicks the model's row in the picker's table, as a user choosing it.
    bool activateModelRow(const QString& pathOrCardId) {
        auto* table = m_window->findChild<QTableView*>(QStringLiteral("modelTable"));
        const int row = tableRowOf(pathOrCardId);
        if (table == nullptr || row < 0) {
            return false;
        }
        const QModelIndex index = table->model()->index(row, ModelLibraryModel::Name);
        table->scrollTo(index);
        const QPoint centre = table->visualRect(index).center();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, centre);
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, centre);
        return true;
    }

    QTemporaryDir m_directory;
    QString m_tinyPath;
    QString m_settingsPath;
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<SizingSession> m_session;
    std::unique_ptr<MainWindow> m_window;
};

} // namespace llamafit::test

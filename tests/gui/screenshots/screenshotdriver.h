#pragma once
// ScreenshotDriver: drives the real MainWindow of llamafit_screenshots into the app's main states
// and writes each as a PNG. Owns a temporary folder (the model library with the tiny real-weight
// GGUF, the QSettings INI file, the profile folder, the prlimit wrapper), the SizingSession and
// the window. Every step changes the GUI through widgets found by objectName, then waits for
// the picture to be current -- the memory chart's QCustomPlot emitted afterReplot after the
// change; for the live view, samples arrived and its refresh timer drew them -- with a
// deadline, never a sleep. A step that cannot reach its state returns an error naming it.
// Used by screenshots_main.cpp. Thread: GUI thread. Units: pixels, tokens.

#include "core/common/result.h"
#include "core/system/serverprocess.h"
#include "ui/appsettings.h"
#include "ui/mainwindow.h"

#include <QImage>
#include <QSize>
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <functional>
#include <memory>

class QSettings;
class QWidget;

namespace llamafit {

class SizingSession;

// A step of the screenshot run that did not reach `state`, and why: "screenshots.<state>".
Error screenshotFailure(const char* state, const QString& why);

class ScreenshotDriver {
  public:
    explicit ScreenshotDriver(QString outputFolder);
    ~ScreenshotDriver();

    // The tiny model, the wrapper, the folders; an error when the temporary folder fails.
    Result<bool> prepare();
    // A new window on the seed's machine and the default card (after installTranslation and
    // applyTheme when the picture needs them), shown at `size` (resized before the first show,
    // as on a screen of that size) and painted; an error when the window cannot be that small.
    Result<bool> openWindow(QSize size = QSize(1600, 1000));
    void closeWindow();

    Result<bool> defaultCard();      // 01: the default card at -c 4096 on the EVO-X2 32/32
    Result<bool> fits();             // 02: -c 65536, V q8_0: fits
    Result<bool> doesNotFit();       // 03: the RTX 4060 8 GB: does not fit
    Result<bool> running();          // 04: the tiny model running, Live tab with samples
    Result<bool> failureDiagnosis(); // 05: an allocation failure's dialog over the window
    Result<bool> benchmark();        // 07: a llama-bench run of the tiny model, dialog over the window
    // cluster-view: a new window, the default card planned on the EVO-X2 and two loopback RPC
    // hosts entered in the Cluster dock (free memory typed in, no server asked), a -ts dragged.
    Result<bool> clusterView();
    // 08, 09: a new window at a screen's size on the default card, as a first start there.
    Result<bool> screenSize(QSize size, const char* name);
    // 10-get-models, 11-downloaded, 12-engine: the new user's path against the emulated Hub and
    // releases (newuserpath.cpp).
    Result<bool> newUserPath();

    // Writes `image` as `<outputFolder>/<name>` and checks the file reads back >= 1200 px wide.
    Result<bool> save(const QImage& image, const QString& name) const;
    Result<bool> saveWindow(const QString& name) const;
    Result<bool> saveOverWindow(QWidget* dialog, const QString& name) const;

  private:
    template <typename T> T* child(const char* name) const {
        return m_window ? m_window->findChild<T*>(QString::fromLatin1(name)) : nullptr;
    }
    // Runs `change`, then waits until the memory chart has replotted after it.
    Result<bool> changeAndWaitForChart(const std::function<void()>& change, const char* what);
    Result<bool> chooseMachine(const QString& id);
    Result<bool> prepareLaunch(const QString& binary, std::uint32_t contextTokens);
    Result<bool> chooseModelInPicker(const QString& path);
    Result<bool> launchAndWaitFor(ServerProcess::State state, const char* what);
    Result<bool> stopServer();

    QString m_outputFolder;
    QTemporaryDir m_directory;
    QString m_tinyPath;
    QString m_server;
    QString m_limitedServer; // llama-server under a 500 MiB address-space limit (prlimit)
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<SizingSession> m_session;
    std::unique_ptr<MainWindow> m_window;
};

} // namespace llamafit

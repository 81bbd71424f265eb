// llamafit_screenshots OUTDIR: the app's main states as PNG files, from the real MainWindow on the
// display the environment gives (Xvfb in the gui.screenshots test): 01-default-card,
// 02-fits, 03-does-not-fit, 04-running (the tiny model served for real), 05-failure-diagnosis
// (a real allocation failure under prlimit), 07-benchmark (the real llama-bench on the tiny model,
// measured against predicted), 08-screen-1366x768 and 09-screen-1920x1080 (a new window at a
// small laptop's and a full-HD screen's size: every dock whole) and 06-japanese-dark (the
// Japanese translation and the dark theme, installed before that window is built), 13 and 14 (Japanese at
// 1366 x 768 and 1920 x 1080), and 10-get-models, 11-downloaded, 12-engine (the new user's path against
// the Hub and the releases emulated by nginx). Exits non-zero naming the
// state it could not reach. QStandardPaths runs in test mode: the user's settings are not touched.
#include "tests/gui/screenshots/screenshotdriver.h"
#include "tests/support/llamaserverrun.h"
#include "ui/theme.h"
#include "ui/translation.h"

#include <QApplication>
#include <QStandardPaths>

#include <cstdio>
#include <functional>
#include <utility>

namespace {
constexpr int kSkipped = 77;
} // namespace

int main(int argc, char* argv[]) {
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("LlamaFitTests"));
    QApplication::setApplicationName(QStringLiteral("LlamaFitScreenshots"));
    if (argc != 2) {
        std::fprintf(stderr, "usage: llamafit_screenshots OUTDIR\n");
        return 2;
    }
    std::printf("platform: %s\n", qPrintable(QGuiApplication::platformName()));
    if (QGuiApplication::platformName() == QLatin1String("offscreen")) {
        std::printf("no X server (xvfb-run was not found): the pictures are drawn offscreen, without a "
                    "window manager\n");
    }
    // 04-running and 05-failure-diagnosis need the live server: skipped (ctest's SKIP_RETURN_CODE)
    // where scripts/fetch-llama-server.sh could not fetch it.
    if (const auto unavailable = llamafit::test::liveServerUnavailableReason()) {
        std::printf("skipped: live llama-server unavailable: %s\n", unavailable->c_str());
        return kSkipped;
    }
    llamafit::applyTheme(llamafit::ThemeChoice::Light);

    llamafit::ScreenshotDriver driver(QString::fromLocal8Bit(argv[1]));
    const std::pair<const char*, std::function<llamafit::Result<bool>()>> steps[] = {
        {"prepare", [&] { return driver.prepare(); }},
        {"open-window", [&] { return driver.openWindow(); }},
        {"01-default-card", [&] { return driver.defaultCard(); }},
        {"02-fits", [&] { return driver.fits(); }},
        {"03-does-not-fit", [&] { return driver.doesNotFit(); }},
        {"04-running", [&] { return driver.running(); }},
        {"05-failure-diagnosis", [&] { return driver.failureDiagnosis(); }},
        {"07-benchmark", [&] { return driver.benchmark(); }},
        {"08-screen-1366x768", [&] { return driver.screenSize(QSize(1366, 768), "08-screen-1366x768.png"); }},
        {"09-screen-1920x1080",
         [&] { return driver.screenSize(QSize(1920, 1080), "09-screen-1920x1080.png"); }},
        {"cluster-view", [&] { return driver.clusterView(); }},
        {"10-get-models", [&] { return driver.newUserPath(); }},
        {"06-japanese-dark",
         [&] {
             driver.closeWindow();
             llamafit::installTranslation(QStringLiteral("ja"));
             llamafit::applyTheme(llamafit::ThemeChoice::Dark);
             auto opened = driver.openWindow();
             return opened ? driver.saveWindow(QStringLiteral("06-japanese-dark.png")) : opened;
         }},
        // Japanese at both screen sizes: the whole window on the screen, the chart readable.
        {"13-japanese-1366x768",
         [&] { return driver.screenSize(QSize(1366, 768), "13-japanese-1366x768.png"); }},
        {"14-japanese-1920x1080",
         [&] { return driver.screenSize(QSize(1920, 1080), "14-japanese-1920x1080.png"); }},
    };
    for (const auto& [state, step] : steps) {
        const llamafit::Result<bool> done = step();
        if (!done) {
            std::fprintf(stderr, "could not reach %s: %s (%s)\n", state, done.error().message.c_str(),
                         done.error().code.c_str());
            return 1;
        }
    }
    driver.closeWindow();
    return 0;
}

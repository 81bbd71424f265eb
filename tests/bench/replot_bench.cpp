// The GUI's slider-to-chart latency: the real main window (offscreen, or on the display the
// environment gives), a scripted drag of the context slider over 200 steps up and down its
// stops, and for each step the time from the slider's value change to the end of the replot
// of the memory chart and of the context-sweep chart (QCustomPlot::afterReplot, which fires
// once the queued replot has painted). Prints median, 95th percentile and maximum; the target
// is a median of at most 16 ms (one frame at 60 Hz). A measurement, printed, not asserted.
//
// usage: llamafit_replot_bench [STEPS] [--json FILE]
#include "core/machine/machineprofile.h"
#include "ui/appsettings.h"
#include "ui/mainwindow.h"
#include "ui/sizingsession.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

double percentile(std::vector<double> values, double fraction) {
    std::sort(values.begin(), values.end());
    const std::size_t index = std::min(values.size() - 1, static_cast<std::size_t>(fraction * values.size()));
    return values[index];
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    int steps = 200;
    QString jsonFile;
    const QStringList args = QApplication::arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--json") && i + 1 < args.size()) {
            jsonFile = args[++i];
        } else {
            steps = std::max(2, args[i].toInt());
        }
    }

    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("bench.ini")), QSettings::IniFormat);
    llamafit::SizingSession session(*llamafit::findBuiltinMachine(llamafit::defaultMachineId()));
    llamafit::MainWindowOptions options;
    options.libraryRoots = llamafit::LibraryRoots{};
    options.detectDevices = false;
    options.profileFolder = dir.filePath(QStringLiteral("profiles"));
    llamafit::MainWindow window(&session, &settings, llamafit::AppSettings{}, options);
    window.resize(1400, 900);
    window.show();

    auto* slider = window.findChild<QSlider*>(QStringLiteral("contextSlider"));
    auto* memory = window.findChild<QCustomPlot*>(QStringLiteral("memoryChart"));
    auto* sweep = window.findChild<QCustomPlot*>(QStringLiteral("sweepChart"));
    if (slider == nullptr || memory == nullptr || sweep == nullptr) {
        std::fprintf(stderr, "replot_bench: contextSlider, memoryChart or sweepChart not found\n");
        return 1;
    }
    QApplication::processEvents();

    bool memoryDone = false;
    bool sweepDone = false;
    QObject::connect(memory, &QCustomPlot::afterReplot, [&] { memoryDone = true; });
    QObject::connect(sweep, &QCustomPlot::afterReplot, [&] { sweepDone = true; });

    // Up the stops and back down: every step is a real value change.
    std::vector<int> values;
    const int last = slider->maximum();
    for (int i = 0; static_cast<int>(values.size()) < steps; ++i) {
        const int span = std::max(1, last - slider->minimum());
        const int phase = i % (2 * span);
        values.push_back(slider->minimum() + (phase < span ? phase + 1 : 2 * span - phase - 1));
    }

    std::vector<double> memoryMs;
    std::vector<double> bothMs;
    int timeouts = 0;
    for (int value : values) {
        if (value == slider->value()) {
            value = value == slider->minimum() ? value + 1 : value - 1;
        }
        memoryDone = false;
        sweepDone = false;
        QElapsedTimer timer;
        timer.start();
        slider->setValue(value);
        double memoryAt = -1;
        // Events until both charts have painted; 2 s without a replot counts as a timeout.
        while ((!memoryDone || !sweepDone) && timer.elapsed() < 2000) {
            QApplication::processEvents(QEventLoop::AllEvents, 5);
            if (memoryDone && memoryAt < 0) {
                memoryAt = static_cast<double>(timer.nsecsElapsed()) / 1e6;
            }
        }
        if (!memoryDone || !sweepDone) {
            ++timeouts;
            continue;
        }
        memoryMs.push_back(memoryAt);
        bothMs.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    if (bothMs.empty()) {
        std::fprintf(stderr, "replot_bench: no step finished a replot\n");
        return 1;
    }
    const double median = percentile(bothMs, 0.5);
    std::printf("replot_bench: %zu steps (%d timed out), slider change -> both charts replotted\n",
                bothMs.size(), timeouts);
    std::printf("  memory chart: median %.2f ms, p95 %.2f ms\n", percentile(memoryMs, 0.5),
                percentile(memoryMs, 0.95));
    std::printf("  both charts:  median %.2f ms, p95 %.2f ms, max %.2f ms (target median <= 16 ms: %s)\n",
                median, percentile(bothMs, 0.95), percentile(bothMs, 1.0), median <= 16.0 ? "met" : "MISSED");
    if (!jsonFile.isEmpty()) {
        QFile out(jsonFile);
        if (out.open(QIODevice::WriteOnly)) {
            out.write(QStringLiteral(
                          "{\"steps\":%1,\"timeouts\":%2,\"median_ms\":%3,\"p95_ms\":%4,\"max_ms\":%5}\n")
                          .arg(bothMs.size())
                          .arg(timeouts)
                          .arg(median)
                          .arg(percentile(bothMs, 0.95))
                          .arg(percentile(bothMs, 1.0))
                          .toUtf8());
        }
    }
    return 0;
}

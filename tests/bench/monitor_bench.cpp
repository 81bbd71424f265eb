// llamafit_monitor_bench: the CPU cost of the live monitor (ServerProbe polling /health,
// /props, /slots, /metrics and the RSS at 2 Hz) against the real llama-server 0.7.0 on the
// tiny model. Target (issue 3): at most 1 % of one core. A measurement, not a test: prints
// CPU seconds of this process (getrusage RUSAGE_SELF user+sys, i.e. the probe, its Qt event
// loop and network stack, not the server) over wall seconds, and the number of samples.
// Usage: llamafit_monitor_bench [SECONDS=20] [INTERVAL_MS=500]

#include "core/system/serverprobe.h"
#include "core/system/serverprocess.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {

double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int seconds = argc > 1 ? std::atoi(argv[1]) : 20;
    const int intervalMs = argc > 2 ? std::atoi(argv[2]) : 500;
    const auto server = llamafit::test::findLlamaServer();
    if (!server.ok()) {
        std::fprintf(stderr, "%s\n", server.error().message.c_str());
        return 1;
    }
    QTemporaryDir dir;
    const std::string model = dir.filePath(QStringLiteral("bench-tiny.gguf")).toStdString();
    if (!llamafit::test::writeTinyModel(model).ok()) {
        std::fprintf(stderr, "cannot write %s\n", model.c_str());
        return 1;
    }
    llamafit::ServerProcess process;
    std::unique_ptr<llamafit::ServerProbe> probe; // made once Ready: the port is known after start()
    int exitCode = 0;
    double cpuStart = 0;
    QElapsedTimer wall;
    QObject::connect(
        &process, &llamafit::ServerProcess::stateChanged, &app, [&](llamafit::ServerProcess::State state) {
            if (state == llamafit::ServerProcess::State::Ready && !wall.isValid()) {
                probe = std::make_unique<llamafit::ServerProbe>(process.baseUrl());
                probe->setInterval(std::chrono::milliseconds(intervalMs));
                probe->setProcessId(process.processId());
                cpuStart = cpuSeconds();
                wall.start();
                probe->start();
                QTimer::singleShot(seconds * 1000, &app, [&] {
                    probe->stop();
                    const double cpu = cpuSeconds() - cpuStart;
                    const double elapsed = static_cast<double>(wall.elapsed()) / 1000.0;
                    std::printf(
                        "monitor at %d ms: %.3f s CPU over %.1f s wall = %.3f %% of one core; "
                        "%zu /health, %zu /slots, %zu /metrics, %zu RSS samples, %llu failed requests\n",
                        intervalMs, cpu, elapsed, 100.0 * cpu / elapsed, probe->health().size(),
                        probe->slotStates().size(), probe->metrics().size(), probe->processRss().size(),
                        static_cast<unsigned long long>(probe->failedRequests()));
                    process.stop();
                });
            } else if (state == llamafit::ServerProcess::State::Failed) {
                std::fprintf(stderr, "server failed: %s\n", process.failure().message.c_str());
                exitCode = 1;
                app.quit();
            } else if (state == llamafit::ServerProcess::State::Stopped && wall.isValid()) {
                app.quit();
            }
        });
    process.start(QString::fromStdString(*server),
                  {QStringLiteral("-m"), QString::fromStdString(model), QStringLiteral("-c"),
                   QStringLiteral("256"), QStringLiteral("--no-warmup"), QStringLiteral("-t"),
                   QStringLiteral("1"), QStringLiteral("--metrics")});
    app.exec();
    return exitCode;
}

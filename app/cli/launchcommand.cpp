// `llamafit-cli launch`: starts llama-server for -m MODEL and the given flags through
// ServerProcess, prints each state change and a status line per second (ServerProbe), stops
// the server cleanly on Ctrl-C, and on failure prints the diagnosis and exits non-zero.

#include "app/cli/commands.h"
#include "app/cli/modelsource.h"

#include "core/flags/serverargs.h"
#include "core/server/allocationlog.h"
#include "core/server/failurefixes.h"
#include "core/server/predictioncomparison.h"
#include "core/sizing/estimator.h"
#include "core/system/serverlauncher.h"
#include "core/system/serverprobe.h"
#include "core/system/serverprocess.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTimer>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#ifndef Q_OS_WIN
#include <fcntl.h>
#include <unistd.h>
#endif

namespace llamafit {

namespace {

constexpr int kExitServerFailed = 1;

constexpr const char* kUsage =
    R"(usage: llamafit-cli launch -m MODEL [llama-server flags] [--server PATH] [--port N|any]

Starts llama-server for MODEL with the given flags, bound to 127.0.0.1 with --metrics and
-lv 4, prints its state changes, once loaded the predicted-versus-actual memory table (the
estimate for the same flags against the buffers the server logged; `!` marks a component off
by more than 1 %), then a status line each second (per-slot and total decode tokens/s,
resident memory), and stops it on Ctrl-C (SIGTERM, SIGKILL after 5 s). When the server runs
out of memory it names the component that did not fit and lists changes that would.

  -m, --model MODEL    the GGUF file to serve
  llama-server flags   as for `estimate`; memory settings are re-spelled for 0.7.0, the
                       rest are passed on as given
  --server PATH        the llama-server program (default: $LLAMAFIT_LLAMA_SERVER, else
                       llama-server on PATH)
  --port N|any         port (default any: a free one)

Before the start the server is probed (--version, --help): the flags are spelled the way
that build knows (each re-spelling is printed as a note), a setting it cannot express is
refused, and `llama-server <flags> --version` must accept the whole argv. When the probe
itself fails the 0.7.0 spellings are used unchecked.

Exit status: 0 stopped by Ctrl-C, 1 the server failed (the reason is printed), 2 bad usage
(including flags the server's build refuses; nothing is started).
)";

#ifndef Q_OS_WIN
// Self-pipe: the signal handler only writes a byte; the event loop does the stopping.
int g_signalPipe[2] = {-1, -1};
void onSignal(int) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(g_signalPipe[1], &byte, 1);
}
#endif

std::string statusLine(const ServerProcess& process, const ServerProbe* probe) {
    std::ostringstream line;
    line << ServerProcess::stateName(process.state());
    if (probe != nullptr && !probe->slotThroughputs().empty()) {
        line << " | slots";
        double total = 0;
        for (const SlotThroughput& slot : probe->slotThroughputs().latest().value) {
            line << ' ' << slot.id << ':' << static_cast<int>(slot.tokensPerSecond + 0.5);
            total += slot.tokensPerSecond;
        }
        line << " t/s | total " << static_cast<int>(total + 0.5) << " t/s";
    }
    if (probe != nullptr && !probe->processRss().empty()) {
        line << " | rss " << formatMiB(probe->processRss().latest().value) << " MiB";
    }
    return line.str();
}

// What the estimate says for the flags the server runs with (the model read once, before
// the start); nothing when the model cannot be read or sized -- the launch goes on without it.
struct Prediction {
    SizingModel model;
    ServerSettings settings;
    std::vector<GpuDevice> gpus;
    MemoryEstimate estimate;
};

std::optional<Prediction> predict(const ParsedServerArgs& parsed, std::ostream& err) {
    Result<LoadedModel> loaded = loadModel(parsed.model);
    if (!loaded) {
        err << "llamafit-cli: no prediction (" << loaded.error().message << ")\n";
        return std::nullopt;
    }
    SizingModel model = prepareModel(std::move(loaded->info));
    Result<MemoryEstimate> estimate = estimateMemory(model, parsed.settings, parsed.gpus);
    if (!estimate) {
        err << "llamafit-cli: no prediction (" << estimate.error().message << ")\n";
        return std::nullopt;
    }
    return Prediction{std::move(model), parsed.settings, parsed.gpus, std::move(*estimate)};
}

// The predicted-versus-actual table, from the log the server printed while loading.
void printComparison(const std::string& log, const Prediction& prediction, std::ostream& out) {
    Result<AllocationLog> parsed = parseAllocationLog(log);
    if (!parsed) {
        out << "predicted vs actual: log not readable (" << parsed.error().message << ")" << std::endl;
        return;
    }
    out << "predicted vs actual (MiB):\n"
        << formatPredictionComparison(comparePrediction(prediction.estimate, *parsed)) << std::flush;
}

// For an allocation failure: which component did not fit and what would. The failed device's
// budget is what the failure proves (allocationBudgetBytes: less than the buffers allocated
// before it plus the failed one, and for the host no more than the OS says is available).
void printFixes(const LaunchFailure& failure, const Prediction& prediction, std::ostream& err) {
    const std::optional<std::uint64_t> budget = allocationBudgetBytes(failure);
    if (!budget) {
        return;
    }
    Result<FailureDiagnosis> diagnosis = diagnoseAllocationFailure(
        prediction.model, prediction.settings, prediction.gpus, *failure.allocation, *budget);
    if (!diagnosis) {
        err << "no fix computed: " << diagnosis.error().message << "\n";
        return;
    }
    err << diagnosis->summary << "\n"
        << "  (" << diagnosis->device << " can hold at most " << formatMiB(*budget)
        << " MiB: the buffers allocated before the failure plus the one that failed)\n";
    for (const FailureFix& fix : diagnosis->fixes) {
        err << "  fix: " << fix.change << " -- " << fix.sentence << "\n";
    }
}

} // namespace

int runLaunchCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options =
        splitCliOptions(args, {{"--server", true}, {"--port", true}, {"--help"}, {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    if (options->has("--help") || options->has("-h")) {
        io.out << kUsage;
        return kExitOk;
    }
    Result<ParsedServerArgs> parsed = parseServerArgs(options->rest);
    if (!parsed) {
        return reportError(io, parsed.error(), false);
    }
    if (parsed->model.empty()) {
        return reportError(io, makeError("cli.missing-model", "-m MODEL is required"), false);
    }
    std::uint16_t port = 0;
    const std::string portText = options->value("--port").value_or("any");
    if (portText != "any") {
        const auto [end, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
        if (ec != std::errc{} || end != portText.data() + portText.size() || port == 0) {
            return reportError(
                io, makeError("cli.bad-value", "--port must be 1-65535 or any, not '" + portText + "'"),
                false);
        }
    }
    const char* envServer = std::getenv("LLAMAFIT_LLAMA_SERVER");
    const std::string server =
        options->value("--server")
            .value_or(envServer != nullptr && *envServer != 0 ? envServer : "llama-server");

    // Spelled for the build the probe finds; when the probe fails, the 0.7.0 spelling
    // (unprobedServerArgv) is started unchecked and a missing binary is reported by
    // ServerProcess (exit 1). --host/--metrics/-lv among the flags are not added twice.
    LaunchRequest request;
    request.program = QString::fromStdString(server);
    request.modelPath = parsed->model;
    request.settings = parsed->settings;
    request.argvOptions = launchArgvOptions("127.0.0.1", port != 0 ? std::optional(port) : std::nullopt,
                                            passThroughWords(*parsed));
    const std::optional<Prediction> prediction = predict(*parsed, io.err);

    int qtArgc = 1;
    char qtName[] = "llamafit-cli";
    char* qtArgv[] = {qtName, nullptr};
    std::unique_ptr<QCoreApplication> ownApp;
    if (QCoreApplication::instance() == nullptr) {
        ownApp = std::make_unique<QCoreApplication>(qtArgc, qtArgv);
    }

    ServerProcess process; // ServerLauncher sets its load limit from the model's size
    std::unique_ptr<ServerProbe> probe;
    int exitCode = kExitOk;

    QObject::connect(&process, &ServerProcess::stateChanged, [&](ServerProcess::State state) {
        io.out << "state: " << ServerProcess::stateName(state);
        if (state == ServerProcess::State::Starting) {
            io.out << " (" << server << ", " << process.baseUrl().toString().toStdString() << ")";
        }
        io.out << std::endl;
        if (state == ServerProcess::State::Ready && !probe) {
            if (prediction) {
                printComparison(process.log(), *prediction, io.out);
            }
            probe = std::make_unique<ServerProbe>(process.baseUrl());
            probe->setProcessId(process.processId());
            QObject::connect(probe.get(), &ServerProbe::sampled, &process,
                             [&] { process.setGenerating(probe->anySlotBusy()); });
            probe->start();
        }
        if (state == ServerProcess::State::Stopping && probe) {
            probe->stop();
        }
        if (state == ServerProcess::State::Stopped) {
            QCoreApplication::exit(exitCode);
        }
    });
    QObject::connect(&process, &ServerProcess::failed, [&](const LaunchFailure& failure) {
        io.err << "llamafit-cli: llama-server failed: " << launchFailureName(failure.reason) << "\n"
               << failure.message << "\n";
        for (const std::string& line : failure.evidence) {
            io.err << "  > " << line << "\n";
        }
        if (failure.reason == LaunchFailureReason::AllocationFailed && prediction) {
            printFixes(failure, *prediction, io.err);
        }
        exitCode = kExitServerFailed;
        QCoreApplication::exit(exitCode);
    });

    QTimer statusTimer;
    QObject::connect(&statusTimer, &QTimer::timeout, [&] {
        if (process.state() == ServerProcess::State::Ready ||
            process.state() == ServerProcess::State::Loading) {
            io.out << "status: " << statusLine(process, probe.get()) << std::endl;
        }
    });
    statusTimer.start(1000);

#ifndef Q_OS_WIN
    std::unique_ptr<QSocketNotifier> signalNotifier;
    if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) == 0) {
        signalNotifier = std::make_unique<QSocketNotifier>(g_signalPipe[0], QSocketNotifier::Read);
        QObject::connect(signalNotifier.get(), &QSocketNotifier::activated, [&] {
            char byte = 0;
            while (::read(g_signalPipe[0], &byte, 1) == 1) {
            }
            io.out << "interrupted: stopping llama-server" << std::endl;
            // Failed, or Stopped: still probing the binary, nothing started yet.
            if (process.state() == ServerProcess::State::Failed ||
                process.state() == ServerProcess::State::Stopped) {
                QCoreApplication::exit(exitCode);
            }
            process.stop();
        });
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);
    }
#endif

    // Probe -> spell the argv for the build -> whole-argv check -> start (ServerLauncher). A
    // refusal exits 2 before anything is started: a server that ignored or rejected a flag
    // would not run the configuration that was estimated.
    ServerLauncher launcher(&process);
    QObject::connect(&launcher, &ServerLauncher::probed, [&](const BinaryProbeOutcome& outcome) {
        if (!outcome.capabilities) {
            io.err << "llamafit-cli: could not probe " << server << " (" << outcome.error.message
                   << "); starting it with the 0.7.0 spellings, unchecked\n";
        }
    });
    QObject::connect(&launcher, &ServerLauncher::notes, [&](const QStringList& notes) {
        for (const QString& note : notes) {
            io.out << "note: " << note.toStdString() << std::endl;
        }
    });
    QObject::connect(&launcher, &ServerLauncher::refused, [&](const Error& error) {
        // The build's own argv check names the binary only by file name; say which one.
        const bool rejectedByBuild = error.code == "probe.argv-rejected";
        io.err << "llamafit-cli: " << error.message << (rejectedByBuild ? " (" + server + ")" : "") << "\n";
        exitCode = kExitError;
        QCoreApplication::exit(exitCode);
    });
    // Started from inside the loop: exit() only works on a running loop.
    QTimer::singleShot(0, &launcher, [&] { launcher.launch(request); });
    const int result = QCoreApplication::exec();
#ifndef Q_OS_WIN
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    signalNotifier.reset();
    for (int& fd : g_signalPipe) {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    }
#endif
    return result;
}

} // namespace llamafit

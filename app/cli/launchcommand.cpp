// `llamafit-cli launch`: starts llama-server for -m MODEL and the given flags through
// ServerProcess, prints each state change and a status line per second (ServerProbe), stops
// the server cleanly on Ctrl-C, and on failure prints the diagnosis and exits non-zero. The
// status line and the totals carry the measured decode rate against the speed model's expected
// one and the effective bandwidth against the machine's (core/server/livespeed.h, as the GUI).
// With --machine, a run that generated enough tokens is stored as that machine's live run, and
// later estimates learn its efficiency from it (core/server/liverunrecord.h).

#include "app/cli/commands.h"
#include "app/cli/modelsource.h"
#include "app/cli/qtapplicationscope.h"
#include "app/cli/sizingcommand.h"

#include "app/cli/fixtext.h"
#include "app/cli/interruptnotifier.h"
#include "app/cli/launchprediction.h"
#include "app/cli/speedoutput.h"
#include "core/flags/serverargs.h"
#include "core/machine/machineprofile.h"
#include "core/server/allocationlog.h"
#include "core/server/failurefixes.h"
#include "core/server/liverunrecord.h"
#include "core/server/livespeed.h"
#include "core/server/predictioncomparison.h"
#include "core/server/rpchostusage.h"
#include "core/sizing/estimator.h"
#include "core/sizing/llamabuild.h"
#include "core/system/apikeyfile.h"
#include "core/system/benchmarkstore.h"
#include "core/system/serverlauncher.h"
#include "core/system/serverprobe.h"
#include "core/system/serverprocess.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QTimer>

#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

namespace llamafit {

namespace {

constexpr int kExitServerFailed = 1;

constexpr const char* kLaunchUsage =
    R"usage(usage: llamafit-cli launch -m MODEL [llama-server flags] [--server PATH] [--port N|any] [--expose]
                           [--machine ID|FILE.json] [--bandwidth-gbs N]

Starts llama-server for MODEL with the given flags, bound to 127.0.0.1 with --metrics and
-lv 4, prints its state changes, once loaded the predicted-versus-actual memory table (the
estimate for the same flags against the buffers the server logged; `!` marks a component off
by more than 1 %), then a status line each second (per-slot and total decode tokens/s, the
run's totals from the server's counters -- every finished request, however short -- and
resident memory; the decode rate against the expected one and the effective bandwidth, see
below), and stops it on Ctrl-C (SIGTERM, SIGKILL after 5 s), printing the totals. When the
server runs out of memory it names the component that did not fit and lists changes that would.

  -m, --model MODEL    the GGUF file to serve
  llama-server flags   as for `estimate`; memory settings are re-spelled for 0.7.0, the
                       rest are passed on as given
  --server PATH        the llama-server program (default: $LLAMAFIT_LLAMA_SERVER, else
                       llama-server on PATH)
  --port N|any         port (default any: a free one)
  --expose             allow a --host other than loopback (e.g. --host 0.0.0.0): llama-server
                       has no authentication of its own, so it then gets --api-key-file with a
                       key LlamaFit generates once (user-only file
                       ~/.local/share/LlamaFit/llama-server-api-key) unless the flags hold
                       --api-key or --api-key-file; the monitor sends the key. Without
                       --expose a non-loopback --host is refused (exit 2).
  --machine ID|FILE    the machine the speed is compared with: its bandwidth figure, and the
                       decode efficiency learned from its stored benchmarks and live runs
                       (else the public defaults; 'llamafit-cli machines' lists the built-in
                       ones). A run that generates at least 1024 tokens is stored as one of
                       its live runs when the server stops (~/.local/share/LlamaFit/benchmarks)
  --bandwidth-gbs N    memory bandwidth in GB/s (instead of the machine's figure)

Speed: in "decode 41.2 t/s now (expected 38.0)" and "eff. bw 187.0 of 256.0 GB/s (73 %)" the
rate is the generating slots' (after a request "run avg": the finished requests' average from
/metrics), the expected one the speed model's (bandwidth x efficiency / bytes read per token at
the slots' fill), the effective bandwidth that rate x the bytes read per token, against the
machine's figure. Without --machine or --bandwidth-gbs only the effective bandwidth is shown.

The prediction is for the devices --gpu names; without --gpu (and without -dev) it is for the
GPUs the chosen llama-server lists (--list-devices of that build), each with the memory it
reports free, and --rpc servers without =FREE_MiB are asked the same way.

Before the start the server is probed (--version, --help): the flags are spelled the way
that build knows (each re-spelling is printed as a note), a setting it cannot express is
refused, and `llama-server <flags> --version` must accept the whole argv. When the probe
itself fails the 0.7.0 spellings are used unchecked.

Exit status: 0 stopped by Ctrl-C, 1 the server failed (the reason is printed), 2 bad usage
(including flags the server's build refuses; nothing is started).
)usage";

// "run 800 tokens generated (412 t/s), 34 prompt tokens (910 t/s)": every finished request,
// however short, from the server's own counters.
std::string runTotalsText(const RunTotals& totals) {
    std::ostringstream text;
    const auto rate = [&text](const std::optional<double>& tokensPerSecond) {
        if (tokensPerSecond) {
            text << " (" << static_cast<long long>(*tokensPerSecond + 0.5) << " t/s)";
        }
    };
    text << "run " << totals.generatedTokens << " tokens generated";
    rate(totals.generationTokensPerSecond);
    text << ", " << totals.promptTokens << " prompt tokens";
    rate(totals.promptTokensPerSecond);
    return text.str();
}

// What the live speed is compared with: the machine's bandwidth (nullopt: none given) and the
// decode efficiency the expected rate uses.
struct SpeedReference {
    std::optional<std::uint64_t> bandwidthBytesPerSecond;
    SpeedEfficiency efficiency;
    std::optional<std::string> machineId; // --machine: the run is learned from, for this machine
    Backend backend = Backend::Cpu;       // the machine's decoding backend (speedBackend)
};

// "decode 41.2 t/s now (expected 38.0) | eff. bw 187.0 of 256.0 GB/s (73 %)".
std::string liveSpeedText(const LiveSpeed& speed) {
    char text[200];
    const char* source = speed.measured.source == MeasuredRateSource::Slots ? "now" : "run avg";
    if (speed.expectedTokensPerSecond && speed.machineBytesPerSecond && speed.fractionOfMachine) {
        std::snprintf(
            text, sizeof text, "decode %.1f t/s %s (expected %.1f) | eff. bw %.1f of %.1f GB/s (%.0f %%)",
            speed.measured.tokensPerSecond, source, *speed.expectedTokensPerSecond,
            speed.effectiveBytesPerSecond / 1e9, static_cast<double>(*speed.machineBytesPerSecond) / 1e9,
            *speed.fractionOfMachine * 100);
    } else {
        std::snprintf(text, sizeof text, "decode %.1f t/s %s | eff. bw %.1f GB/s (no machine figure)",
                      speed.measured.tokensPerSecond, source, speed.effectiveBytesPerSecond / 1e9);
    }
    return text;
}

// The live speed from the probe's latest samples; nothing before the first generated token or
// without a prediction.
std::optional<LiveSpeed> probedLiveSpeed(const ServerProbe& probe,
                                         const std::optional<Prediction>& prediction,
                                         const SpeedReference& reference) {
    if (!prediction || probe.metrics().empty()) {
        return std::nullopt;
    }
    static const std::vector<SlotState> kNoSlots;
    static const std::vector<SlotThroughput> kNoRates;
    return liveSpeed(prediction->model.model(), prediction->estimate, reference.bandwidthBytesPerSecond,
                     reference.efficiency,
                     probe.slotStates().empty() ? kNoSlots : probe.slotStates().latest().value,
                     probe.slotThroughputs().empty() ? kNoRates : probe.slotThroughputs().latest().value,
                     runTotals(probe.metrics().latest().value));
}

std::string statusLine(const ServerProcess& process, const ServerProbe* probe,
                       const std::optional<Prediction>& prediction, const SpeedReference& reference) {
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
    if (probe != nullptr && !probe->metrics().empty()) {
        line << " | " << runTotalsText(runTotals(probe->metrics().latest().value));
        if (const std::optional<LiveSpeed> speed = probedLiveSpeed(*probe, prediction, reference)) {
            line << " | " << liveSpeedText(*speed);
        }
    }
    if (probe != nullptr && !probe->processRss().empty()) {
        line << " | rss " << formatMiB(probe->processRss().latest().value) << " MiB";
    }
    return line.str();
}

// The predicted-versus-actual table, from the log the server printed while loading.
void printComparison(const std::string& log, const Prediction& prediction, std::ostream& out) {
    Result<AllocationLog> parsed = parseAllocationLog(log);
    if (!parsed) {
        out << "predicted vs actual: log not readable (" << parsed.error().message << ")" << std::endl;
        return;
    }
    out << "predicted for llama.cpp " << sizedForText(prediction.llamaBuild) << "\n"
        << "predicted vs actual (MiB):\n"
        << formatPredictionComparison(comparePrediction(prediction.estimate, *parsed)) << std::flush;
}

// Each RPC host's share, from this host's log: the only place its memory shows (rpchostusage.h).
void printRpcHosts(const std::string& log, const std::optional<Prediction>& prediction, std::ostream& out) {
    Result<AllocationLog> parsed = parseAllocationLog(log);
    if (!parsed) {
        return;
    }
    const std::vector<RpcHostUsage> hosts =
        rpcHostUsage(*parsed, prediction ? std::optional(prediction->estimate) : std::nullopt);
    if (hosts.empty()) {
        return;
    }
    out << "RPC hosts (from this host's log):\n";
    for (const RpcHostUsage& host : hosts) {
        char line[256];
        std::snprintf(line, sizeof line, "  %-22s %-5s %9.2f MiB allocated", host.endpoint.c_str(),
                      host.device.c_str(), host.allocatedMiB);
        out << line;
        if (host.predictedMiB) {
            std::snprintf(line, sizeof line, " (predicted %.2f)", *host.predictedMiB);
            out << line;
        }
        if (host.freeAtStartMiB) {
            out << " of " << *host.freeAtStartMiB << " MiB it reported free";
        }
        out << "\n";
    }
    out << std::flush;
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
    err << diagnosisSummary(*diagnosis) << "\n"
        << "  (" << diagnosis->device << " can hold at most " << formatMiB(*budget)
        << " MiB: the buffers allocated before the failure plus the one that failed)\n";
    for (const FailureFix& fix : diagnosis->fixes) {
        err << "  fix: " << fixChange(fix) << " -- " << fixSentence(fix, *diagnosis) << "\n";
    }
}

// What `launch` starts: the program, and the request ServerLauncher spells for its build.
struct LaunchArguments {
    std::string server;
    ParsedServerArgs parsed;
    LaunchRequest request;
};

Result<LaunchArguments> readLaunchArguments(const CliOptions& options) {
    Result<ParsedServerArgs> parsed = parseServerArgs(options.rest);
    if (!parsed) {
        return parsed.error();
    }
    if (parsed->model.empty()) {
        return makeError("cli.missing-model", "-m MODEL is required");
    }
    std::uint16_t port = 0;
    const std::string portText = options.value("--port").value_or("any");
    if (portText != "any") {
        const auto [end, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
        if (ec != std::errc{} || end != portText.data() + portText.size() || port == 0) {
            return makeError("cli.bad-value", "--port must be 1-65535 or any, not '" + portText + "'");
        }
    }
    LaunchArguments launch;
    launch.server = llamaServerProgram(options);
    // Spelled for the build the probe finds; when the probe fails, the 0.7.0 spelling
    // (unprobedServerArgv) is started unchecked and a missing binary is reported by
    // ServerProcess (exit 1). --host/--metrics/-lv among the flags are not added twice.
    launch.request.program = QString::fromStdString(launch.server);
    launch.request.modelPath = parsed->model;
    launch.request.settings = parsed->settings;
    launch.request.argvOptions = launchArgvOptions(
        "127.0.0.1", port != 0 ? std::optional(port) : std::nullopt, passThroughWords(*parsed));
    Result<std::vector<std::string>> guarded = prepareExposure(
        launch.request.argvOptions.host, launch.request.argvOptions.extraArgs, options.has("--expose"));
    if (!guarded) {
        return guarded.error();
    }
    launch.request.argvOptions.extraArgs = std::move(*guarded);
    launch.parsed = std::move(*parsed);
    return launch;
}

// --machine and --bandwidth-gbs: the machine's figure and its learned efficiency, the given
// bandwidth (which wins over the machine's), or neither. Without a machine the efficiency is the
// public default for the first --gpu's backend, else the CPU's (as `estimate`).
Result<SpeedReference> readSpeedReference(const CliOptions& options, const ParsedServerArgs& parsed,
                                          const std::optional<Prediction>& prediction) {
    Result<std::optional<double>> bandwidthGBps = positiveNumberOption(options, "--bandwidth-gbs");
    if (!bandwidthGBps) {
        return bandwidthGBps.error();
    }
    const bool moe = prediction && prediction->model.model().isMoe();
    SpeedReference reference;
    if (const std::optional<std::string> name = options.value("--machine")) {
        Result<Machine> machine = resolveMachine(*name);
        if (!machine) {
            return machine.error();
        }
        reference.bandwidthBytesPerSecond = machine->bandwidthBytesPerSecond;
        reference.efficiency = BenchmarkStore().efficiencyFor(*machine, moe);
        reference.machineId = machine->id;
        reference.backend = speedBackend(*machine);
    } else {
        reference.efficiency =
            defaultSpeedEfficiency(parsed.gpus.empty() ? Backend::Cpu : parsed.gpus.front().backend, moe);
    }
    if (*bandwidthGBps) {
        reference.bandwidthBytesPerSecond = static_cast<std::uint64_t>(**bandwidthGBps * 1e9);
    }
    return reference;
}

// One `launch` run on the event loop: owns the server process, its launcher, the monitor and
// the status timer, prints what happens, and ends the loop with the exit status. Every
// connection has this session (or the monitor it owns) as its context, so no slot outlives
// what it uses. Create after the QCoreApplication; one per process (InterruptNotifier's pipe is global).
class LaunchSession : public QObject {
  public:
    LaunchSession(const CommandIo& io, std::string server, std::optional<Prediction> prediction,
                  SpeedReference speedReference);
    ~LaunchSession() override;

    // Probe -> spell the argv for the build -> whole-argv check -> start (ServerLauncher), then
    // runs the event loop until the server stops or fails; returns the exit status. A refusal
    // exits 2 before anything is started: a server that ignored or rejected a flag would not
    // run the configuration that was estimated.
    int run(const LaunchRequest& request);

  private:
    void onStateChanged(ServerProcess::State state);
    void onFailed(const LaunchFailure& failure);
    void startMonitor();
    void tallyLiveRun();
    void storeLiveRun();
    void printStatus();
    void onInterrupt();
    void end(int exitCode);

    const CommandIo& m_io;
    const std::string m_server;
    const std::optional<Prediction> m_prediction;
    const SpeedReference m_speedReference;
    LaunchRequest m_request;
    ServerProcess m_process;              // ServerLauncher sets its load limit from the model's size
    ServerLauncher m_launcher;            // declared after m_process: it goes first
    std::unique_ptr<ServerProbe> m_probe; // from Ready on
    QTimer m_statusTimer;
    std::unique_ptr<InterruptNotifier> m_interrupts;
    LiveRunTally m_liveRun; // what the run teaches the speed model
    QDateTime m_readyAt;    // when the monitor started (the live run's start)
    int m_exitCode = kExitOk;
};

LaunchSession::LaunchSession(const CommandIo& io, std::string server, std::optional<Prediction> prediction,
                             SpeedReference speedReference)
    : m_io(io), m_server(std::move(server)), m_prediction(std::move(prediction)),
      m_speedReference(std::move(speedReference)), m_launcher(&m_process) {
    connect(&m_process, &ServerProcess::stateChanged, this, &LaunchSession::onStateChanged);
    connect(&m_process, &ServerProcess::failed, this, &LaunchSession::onFailed);
    connect(&m_statusTimer, &QTimer::timeout, this, &LaunchSession::printStatus);
    connect(&m_launcher, &ServerLauncher::probed, this, [this](const BinaryProbeOutcome& outcome) {
        if (!outcome.capabilities) {
            m_io.err << "llamafit-cli: could not probe " << m_server << " (" << outcome.error.message
                     << "); starting it with the 0.7.0 spellings, unchecked\n";
        }
    });
    connect(&m_launcher, &ServerLauncher::notes, this, [this](const QStringList& notes) {
        for (const QString& note : notes) {
            m_io.out << "note: " << note.toStdString() << std::endl;
        }
    });
    connect(&m_launcher, &ServerLauncher::refused, this, [this](const Error& error) {
        // The build's own argv check names the binary only by file name; say which one.
        const bool rejectedByBuild = error.code == "probe.argv-rejected";
        m_io.err << "llamafit-cli: " << error.message << (rejectedByBuild ? " (" + m_server + ")" : "")
                 << "\n";
        end(kExitError);
    });
}

LaunchSession::~LaunchSession() = default;

int LaunchSession::run(const LaunchRequest& request) {
    m_request = request;
    m_statusTimer.start(1000);
    m_interrupts = std::make_unique<InterruptNotifier>([this] { onInterrupt(); });
    // Started from inside the loop: exit() only works on a running loop.
    QTimer::singleShot(0, this, [this] { m_launcher.launch(m_request); });
    return QCoreApplication::exec();
}

void LaunchSession::end(int exitCode) {
    m_exitCode = exitCode;
    QCoreApplication::exit(m_exitCode);
}

void LaunchSession::onStateChanged(ServerProcess::State state) {
    m_io.out << "state: " << ServerProcess::stateName(state);
    if (state == ServerProcess::State::Starting) {
        m_io.out << " (" << m_server << ", " << m_process.baseUrl().toString().toStdString() << ")";
    }
    m_io.out << std::endl;
    if (state == ServerProcess::State::Ready && !m_probe) {
        if (m_prediction) {
            printComparison(m_process.log(), *m_prediction, m_io.out);
        }
        printRpcHosts(m_process.log(), m_prediction, m_io.out);
        startMonitor();
    }
    if (state == ServerProcess::State::Stopping && m_probe) {
        m_probe->stop();
    }
    if (state == ServerProcess::State::Stopped) {
        if (m_probe && !m_probe->metrics().empty()) {
            m_io.out << "totals: " << runTotalsText(runTotals(m_probe->metrics().latest().value));
            if (const std::optional<LiveSpeed> speed =
                    probedLiveSpeed(*m_probe, m_prediction, m_speedReference)) {
                m_io.out << " | " << liveSpeedText(*speed);
            }
            m_io.out << std::endl;
        }
        storeLiveRun();
        end(m_exitCode);
    }
}

void LaunchSession::startMonitor() {
    // The status line reads the latest samples only: the GUI's ten minutes of history (several
    // MiB, scripts/soak.sh) would be memory the CLI never shows.
    constexpr std::size_t kStatusSamples = 4;
    m_probe = std::make_unique<ServerProbe>(m_process.baseUrl(), kStatusSamples);
    m_probe->setProcessId(m_process.processId());
    if (Result<std::string> key = apiKeyOfServer(m_process.arguments())) {
        m_probe->setApiKey(*key);
    } else {
        m_io.err << "llamafit-cli: the monitor has no API key (" << key.error().message
                 << "); /metrics and /slots will answer 401\n";
    }
    connect(m_probe.get(), &ServerProbe::sampled, m_probe.get(), [this] {
        m_process.setGenerating(m_probe->anySlotBusy());
        tallyLiveRun();
    });
    m_readyAt = QDateTime::currentDateTimeUtc();
    m_probe->start();
}

void LaunchSession::tallyLiveRun() {
    if (!m_probe->metrics().empty()) {
        m_liveRun = llamafit::tallyLiveRun(m_liveRun, runTotals(m_probe->metrics().latest().value),
                                           probedLiveSpeed(*m_probe, m_prediction, m_speedReference));
    }
}

// With --machine: the run's decode average against its bound becomes one of the machine's live
// runs, which later estimates learn from; a short run is named as too short to learn from.
void LaunchSession::storeLiveRun() {
    if (!m_speedReference.machineId || !m_prediction || !m_readyAt.isValid()) {
        return;
    }
    const std::optional<LiveRunRecord> record = finishLiveRun(
        m_liveRun, BenchmarkStore::liveRunIdentity(*m_speedReference.machineId, m_speedReference.backend,
                                                   m_request.modelPath, m_prediction->model.model().isMoe(),
                                                   m_readyAt, m_speedReference.efficiency));
    if (!record) {
        m_io.out << "learning: not stored, " << m_liveRun.generatedTokens << " tokens measured against "
                 << "the bound (at least " << kMinLearnedLiveTokens << " are needed)" << std::endl;
        return;
    }
    const Result<QString> path = BenchmarkStore().appendLiveRun(*record);
    if (!path) {
        m_io.err << "llamafit-cli: this run was not stored for learning: " << path.error().message << "\n";
        return;
    }
    char text[160];
    std::snprintf(text, sizeof text, "%llu tokens at %.1f t/s, %.0f %% of the %.1f t/s bound",
                  static_cast<unsigned long long>(record->generatedTokens), record->decodeTps,
                  100.0 * record->decodeTps / record->boundTps, record->boundTps);
    m_io.out << "learning: stored this run (" << text << ") as a live run of " << record->machineId << " in "
             << path->toStdString() << std::endl;
}

void LaunchSession::onFailed(const LaunchFailure& failure) {
    m_io.err << "llamafit-cli: llama-server failed: " << launchFailureName(failure.reason) << "\n"
             << failure.message << "\n";
    for (const std::string& line : failure.evidence) {
        m_io.err << "  > " << line << "\n";
    }
    if (failure.reason == LaunchFailureReason::AllocationFailed && m_prediction) {
        printFixes(failure, *m_prediction, m_io.err);
    }
    end(kExitServerFailed);
}

void LaunchSession::printStatus() {
    if (m_process.state() == ServerProcess::State::Ready ||
        m_process.state() == ServerProcess::State::Loading) {
        m_io.out << "status: " << statusLine(m_process, m_probe.get(), m_prediction, m_speedReference)
                 << std::endl;
    }
}

void LaunchSession::onInterrupt() {
    m_io.out << "interrupted: stopping llama-server" << std::endl;
    // Failed, or Stopped: still probing the binary, nothing started yet.
    if (m_process.state() == ServerProcess::State::Failed ||
        m_process.state() == ServerProcess::State::Stopped) {
        end(m_exitCode);
    }
    m_process.stop();
}

} // namespace

int runLaunchCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--server", true},
                                                        {"--port", true},
                                                        {"--expose"},
                                                        {"--machine", true},
                                                        {"--bandwidth-gbs", true},
                                                        {"--help"},
                                                        {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    if (options->has("--help") || options->has("-h")) {
        io.out << kLaunchUsage;
        return kExitOk;
    }
    Result<LaunchArguments> launch = readLaunchArguments(*options);
    if (!launch) {
        return reportError(io, launch.error(), false);
    }
    std::optional<Prediction> prediction = predict(launch->parsed, launch->server, io.err);
    Result<SpeedReference> speedReference = readSpeedReference(*options, launch->parsed, prediction);
    if (!speedReference) {
        return reportError(io, speedReference.error(), false);
    }

    const QtApplicationScope application;
    LaunchSession session(io, std::move(launch->server), std::move(prediction), std::move(*speedReference));
    return session.run(launch->request);
}

} // namespace llamafit

// `llamafit-cli bench`: llama.cpp's llama-bench on -m MODEL with the planned launch's settings
// (-ngl, -fa, -ctk/-ctv, -b/-ub, -ncmoe, ...), prompt processing and generation at each
// --depths, measured next to the speed model's bound and expected rate, and stored for this
// machine, model file and llama.cpp build (core/system/benchmarkstore.h), from where `plan`
// and the GUI learn the machine's efficiency.

#include "app/cli/commands.h"
#include "app/cli/jsonoutput.h"
#include "app/cli/qtapplicationscope.h"
#include "app/cli/sizingcommand.h"

#include "core/machine/machinefrominventory.h"
#include "core/machine/machineprofile.h"
#include "core/server/benchprediction.h"
#include "core/system/bandwidthprobe.h"
#include "core/system/benchmarkrun.h"
#include "core/system/benchmarkstore.h"
#include "core/system/benchplan.h"
#include "core/system/deviceprobe.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kBenchUsage =
    R"(usage: llamafit-cli bench [--json] -m MODEL.gguf [llama-server flags] [--depths 0,4096,32768]
                         [--threads N] [--prompt-tokens N] [--gen-tokens N] [--repetitions N]
                         [--machine ID|FILE.json] [--llama-bench PATH] [--no-store]

Runs llama.cpp's llama-bench on MODEL with the settings of the planned launch (-ngl, -fa,
-ctk, -ctv, -b, -ub, -nkvo, -ncmoe, -lm, -nr, -ts, -ot): prompt processing (pp) and
generation (tg) at each depth (KV cells filled first), and prints each measured rate next to
the speed model's bound and expected rate (docs/speed.md). The run is stored per machine,
model file and llama.cpp build in the LlamaFit data folder; 'plan' then learns this machine's
efficiency from it.

  -m, --model MODEL.gguf   the model file (a card id cannot be benchmarked)
  --depths LIST            KV depths to test at (default 0)
  --threads N              -t for llama-bench (default: llama-bench's, all cores)
  --prompt-tokens N        -p (default 512; 0 = no prompt test)
  --gen-tokens N           -n (default 128; 0 = no generation test)
  --repetitions N          -r (default 3)
  --machine ID|FILE        the machine the predictions are for and the results are stored
                           under (default: this machine as 'devices' finds it, with its host
                           bandwidth measured when no figure is known)
  --llama-bench PATH       the program (default: $LLAMAFIT_LLAMA_BENCH, else llama-bench next
                           to $LLAMAFIT_LLAMA_SERVER, else llama-bench on the PATH)
  --no-store               do not store the results
  --json                   machine-readable output

Exit status: 0 measured, 2 bad model, flag or setting, 1 llama-bench failed (its reason).
)";

constexpr int kExitBenchFailed = 1;

QString llamaBenchProgram(const CliOptions& options) {
    if (const std::optional<std::string> path = options.value("--llama-bench")) {
        return QString::fromStdString(*path);
    }
    return defaultLlamaBenchProgram({});
}

Result<Machine> benchMachine(const CliOptions& options) {
    if (const std::optional<std::string> name = options.value("--machine")) {
        return resolveMachine(*name);
    }
    Machine machine = machineFromInventory(probeMachine());
    if (!machine.bandwidthBytesPerSecond) {
        if (Result<BandwidthMeasurement> measured = measureHostBandwidth()) {
            applyMeasuredBandwidth(machine, measured->bytesPerSecond, measured->method);
        }
    }
    return machine;
}

Result<std::uint32_t> oneNumber(const CliOptions& options, const char* name, std::uint32_t fallback) {
    const std::optional<std::string> text = options.value(name);
    if (!text) {
        return fallback;
    }
    Result<std::vector<std::uint32_t>> values = parseNumberList(name, *text);
    if (!values || values->size() != 1) {
        return values ? makeError("cli.bad-value", std::string(name) + " takes one number") : values.error();
    }
    return values->front();
}

Result<BenchRequest> benchRequest(const SizingRun& run) {
    BenchRequest request;
    request.modelPath = run.request.model.path;
    if (request.modelPath.empty()) {
        return makeError("bench.bad-request", "'" + run.request.model.argument +
                                                  "' is a built-in card: llama-bench needs the GGUF file");
    }
    request.settings = run.request.args.settings;
    if (const std::optional<std::string> depths = run.options.value("--depths")) {
        Result<std::vector<std::uint32_t>> values = parseBenchDepths(*depths);
        if (!values) {
            return values.error();
        }
        request.depths = *values;
    }
    Result<std::uint32_t> prompt = oneNumber(run.options, "--prompt-tokens", request.promptTokens);
    Result<std::uint32_t> generated = oneNumber(run.options, "--gen-tokens", request.generatedTokens);
    Result<std::uint32_t> repetitions = oneNumber(run.options, "--repetitions", request.repetitions);
    Result<std::uint32_t> threads = oneNumber(run.options, "--threads", 0);
    for (const Result<std::uint32_t>* value : {&prompt, &generated, &repetitions, &threads}) {
        if (!*value) {
            return value->error();
        }
    }
    request.promptTokens = *prompt;
    request.generatedTokens = *generated;
    request.repetitions = *repetitions;
    if (*threads > 0) {
        request.threads = *threads;
    }
    return request;
}

// Runs llama-bench on a Qt event loop (BenchmarkRun is event-driven); progress goes to stderr.
BenchmarkRun::State runBench(BenchmarkRun& run, const QString& program, const BenchRequest& request,
                             std::ostream& err) {
    const QtApplicationScope application;
    QObject::connect(&run, &BenchmarkRun::progressed,
                     [&err](std::uint32_t test, std::uint32_t total, const QString& stage) {
                         err << "bench: test " << test << "/" << total << ": " << stage.toStdString() << "\n";
                     });
    QObject::connect(&run, &BenchmarkRun::stateChanged, [](BenchmarkRun::State state) {
        if (state != BenchmarkRun::State::Running && state != BenchmarkRun::State::Cancelling) {
            QCoreApplication::exit(0);
        }
    });
    run.start(program, request);
    if (run.state() == BenchmarkRun::State::Running) {
        QCoreApplication::exec();
    }
    return run.state();
}

std::string percent(const std::optional<double>& error) {
    if (!error) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", 100 * *error);
    return text;
}

void printText(std::ostream& out, const BenchRecord& record, const std::string& storedPath) {
    out << "Model     " << record.modelPath << "\nMachine   " << record.machineId << "\nllama.cpp build "
        << record.buildNumber << " (" << record.buildCommit << ")\nPredicted with " << record.efficiencySource
        << "\n\n";
    char line[200];
    std::snprintf(line, sizeof line, "%-16s %12s %10s %10s %10s  %s\n", "test", "measured t/s", "+-", "bound",
                  "expected", "expected vs measured");
    out << line;
    for (std::size_t i = 0; i < record.rows.size(); ++i) {
        const BenchRow& row = record.rows[i];
        const BenchRowComparison c = compareBenchRow(row, record.predictions[i]);
        std::snprintf(line, sizeof line, "%-16s %12.2f %10.2f %10.1f %10.1f  %s\n", row.testName().c_str(),
                      c.measuredTps, c.stddevTps, c.boundTps, c.expectedTps,
                      percent(c.expectedError).c_str());
        out << line;
    }
    out << (storedPath.empty() ? "\nNot stored (--no-store).\n" : "\nStored in " + storedPath + "\n");
}

Json recordJson(const BenchRecord& record, const std::string& storedPath) {
    Json rows = Json::array();
    for (std::size_t i = 0; i < record.rows.size(); ++i) {
        const BenchRow& row = record.rows[i];
        const BenchRowPrediction& p = record.predictions[i];
        rows.push_back(
            {{"test", row.testName()},
             {"n_prompt", row.promptTokens},
             {"n_gen", row.generatedTokens},
             {"n_depth", row.depth},
             {"avg_ts", row.averageTps},
             {"stddev_ts", row.stddevTps},
             {"decode_tps_bound", row.isGeneration() ? Json(p.decodeTpsBound) : Json(nullptr)},
             {"decode_tps_expected", row.isGeneration() ? Json(p.decodeTpsExpected) : Json(nullptr)},
             {"prompt_tps_expected",
              row.isPrompt() && p.promptTpsExpected ? Json(*p.promptTpsExpected) : Json(nullptr)}});
    }
    return {{"model", record.modelPath},
            {"machine", record.machineId},
            {"build_number", record.buildNumber},
            {"build_commit", record.buildCommit},
            {"backend", std::string(backendName(record.backend))},
            {"arguments", record.arguments},
            {"efficiency_source", record.efficiencySource},
            {"rows", std::move(rows)},
            {"stored_path", storedPath.empty() ? Json(nullptr) : Json(storedPath)}};
}

} // namespace

int runBenchCommand(const std::vector<std::string>& args, const CommandIo& io) {
    const SizingCommand command{.name = "bench",
                                .usage = kBenchUsage,
                                .options = {{"--depths", true},
                                            {"--threads", true},
                                            {"--prompt-tokens", true},
                                            {"--gen-tokens", true},
                                            {"--repetitions", true},
                                            {"--machine", true},
                                            {"--llama-bench", true},
                                            {"--no-store"}}};
    return runSizingCommand(args, io, command, [](const SizingRun& run) {
        Result<BenchRequest> request = benchRequest(run);
        if (!request) {
            return run.fail(request.error());
        }
        // A refused request fails before the machine probe, which may measure the bandwidth.
        if (Result<std::vector<std::string>> checked = buildBenchArgs(*request); !checked) {
            return run.fail(checked.error());
        }
        Result<Machine> machine = benchMachine(run.options);
        if (!machine) {
            return run.fail(machine.error());
        }
        BenchmarkStore store;
        Result<BenchPlan> plan = planBench(*request, *machine, run.request.model.info, store);
        if (!plan) {
            return run.fail(plan.error());
        }
        BenchmarkRun bench;
        if (runBench(bench, llamaBenchProgram(run.options), plan->request, run.io.err) !=
            BenchmarkRun::State::Finished) {
            reportError(run.io, bench.error(), run.json);
            return kExitBenchFailed;
        }
        const BenchRecord record = benchRecordOf(*plan, bench);
        std::string storedPath;
        if (!run.options.has("--no-store")) {
            Result<QString> stored = store.append(record);
            if (!stored) {
                return run.fail(stored.error());
            }
            storedPath = stored->toStdString();
        }
        if (run.json) {
            printJson(run.io.out, recordJson(record, storedPath));
        } else {
            printText(run.io.out, record, storedPath);
        }
        return kExitOk;
    });
}

} // namespace llamafit

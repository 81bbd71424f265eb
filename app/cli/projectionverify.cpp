// estimate --verify; see projectionverify.h.

#include "app/cli/projectionverify.h"

#include "core/flags/serverargs.h"
#include "core/server/projectioncheck.h"
#include "core/sizing/fitreplica.h"

#include <QProcess>
#include <QStandardPaths>
#include <QStringList>

#include <cstdio>
#include <cstdlib>
#include <ostream>

namespace llamafit {

namespace {

std::string toolPath(const SizingRun& run) {
    if (const std::optional<std::string> path = run.options.value("--llama-fit-params")) {
        return *path;
    }
    if (const char* fromEnv = std::getenv("LLAMAFIT_LLAMA_FIT_PARAMS"); fromEnv && *fromEnv) {
        return fromEnv;
    }
    return QStandardPaths::findExecutable(QStringLiteral("llama-fit-params")).toStdString();
}

struct ToolRun {
    int exitCode = -1;
    std::string out;
    std::string err;
};

ToolRun runTool(const std::string& program, const std::vector<std::string>& args) {
    QStringList arguments;
    for (const std::string& arg : args) {
        arguments << QString::fromStdString(arg);
    }
    QProcess process;
    process.start(QString::fromStdString(program), arguments);
    ToolRun run;
    // A dry run takes about a second; a CLI command may block on it (no event loop to keep).
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = "did not finish within 120 s";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput().toStdString();
    run.err = process.readAllStandardError().toStdString();
    return run;
}

} // namespace

int verifyProjection(const SizingRun& run) {
    const std::string tool = toolPath(run);
    if (tool.empty()) {
        return run.fail(makeError(
            "verify.no-tool", "--verify needs llama.cpp's llama-fit-params: pass --llama-fit-params PATH or "
                              "set LLAMAFIT_LLAMA_FIT_PARAMS"));
    }
    if (run.request.model.path.empty()) {
        return run.fail(makeError("verify.needs-file", "--verify measures a GGUF file; '" +
                                                           run.request.model.argument +
                                                           "' is a built-in card"));
    }
    // The memory flags as llama-fit-params takes them (-kvu/-no-kvu are llama-server's own).
    std::vector<std::string> args = {"-m", run.request.model.path};
    for (const std::string& word : toServerArgs(run.request.args.settings)) {
        if (word != "-kvu" && word != "-no-kvu") {
            args.push_back(word);
        }
    }
    args.insert(args.end(), {"--fit-print", "on", "-lv", "4"});
    const ToolRun measured = runTool(tool, args);
    const std::string logTail =
        measured.err.size() > 2000 ? measured.err.substr(measured.err.size() - 2000) : measured.err;
    Result<AllocationLog> log = parseAllocationLog(measured.err);
    if (measured.exitCode != 0 || !log || log->breakdownTables.empty()) {
        return run.fail(makeError("verify.tool-failed", tool + " exited with " +
                                                            std::to_string(measured.exitCode) +
                                                            " and no memory breakdown:\n" + logTail));
    }
    const std::string build = buildTag(runTool(tool, {"--version"}).err).value_or("(unknown build)");

    // LlamaFit's estimate measured the way llama-fit-params measures (fitreplica.h).
    FitRequest request;
    request.settings = run.request.args.settings;
    request.settings.parallelSlots = request.settings.parallelSlots.value_or(1);
    request.settings.outputReserve = OutputReserve::PerBatch;
    request.settings.fitMeasurement = true;
    Result<MemoryEstimate> estimate =
        estimateMemory(run.request.model.info, request.settings, run.request.args.gpus);
    if (!estimate) {
        return run.fail(estimate.error());
    }
    const std::vector<ProjectionCheckRow> rows =
        compareProjections(log->breakdownTables.front(), fitProjection(*estimate));
    run.io.out << "\nllama.cpp's own projection (" << tool << " --fit-print on, -np "
               << *request.settings.parallelSlots << "):\n";
    for (const ProjectionCheckRow& row : rows) {
        char difference[32];
        std::snprintf(difference, sizeof difference, "%+.1f %%", row.differencePercent);
        run.io.out << "  " << row.device << ": llama.cpp " << build << " projects " << row.llamaCppMiB
                   << " MiB, LlamaFit " << row.llamaFitMiB << " MiB"
                   << (row.differs ? std::string(" -- differs by ") + difference + " (over 1 %)" : "")
                   << "\n";
    }
    return kExitOk;
}

} // namespace llamafit

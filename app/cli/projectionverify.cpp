// estimate --verify; see projectionverify.h.

#include "app/cli/projectionverify.h"

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
    const std::vector<std::string> args =
        projectionToolArgs(run.request.model.path, run.request.args.settings);
    const ToolRun measured = runTool(tool, args);
    const std::string logTail =
        measured.err.size() > 2000 ? measured.err.substr(measured.err.size() - 2000) : measured.err;
    const auto toolFailed = [&] {
        return run.fail(makeError("verify.tool-failed", tool + " exited with " +
                                                            std::to_string(measured.exitCode) +
                                                            " and no memory breakdown:\n" + logTail));
    };
    if (measured.exitCode != 0) {
        return toolFailed();
    }
    // LlamaFit's estimate measured the way llama-fit-params measures.
    const ServerSettings settings = projectionSettings(run.request.args.settings);
    Result<MemoryEstimate> estimate = estimateMemory(run.request.model.info, settings, run.request.args.gpus);
    if (!estimate) {
        return run.fail(estimate.error());
    }
    Result<std::vector<ProjectionCheckRow>> rows = checkProjection(measured.err, *estimate, measured.out);
    if (!rows) {
        return toolFailed();
    }
    const std::string build = buildTag(runTool(tool, {"--version"}).err).value_or("(unknown build)");

    run.io.out << "\nllama.cpp's own projection (" << tool << " --fit-print on, -np "
               << *settings.parallelSlots << "):\n";
    for (const ProjectionCheckRow& row : *rows) {
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

#include "tests/unit/recorded/recordedmatrix.h"

#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/support/modelfiles.h"
#include "tests/support/vulkancases.h"
#include "tests/unit/recorded/recordedrun.h"

#include <filesystem>
#include <map>

namespace llamafit::test {
namespace {

constexpr const char* kRerecord = "; run scripts/record-server-runs.sh (with the pinned llama-server) to "
                                  "bring tests/data/recorded in step";

std::string rerecord(RecordedMatrix matrix) {
    return matrix == RecordedMatrix::Vulkan
               ? "; run scripts/record-server-runs.sh --backend vulkan (with the pinned llama-server's gpu/ "
                 "tree) to bring tests/data/recorded in step"
               : kRerecord;
}

std::string joinedWords(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

} // namespace

// The recorded argv without what the runner adds (--host/--port): the settings the server got.
std::vector<std::string> settingsArgs(const std::vector<std::string>& argv) {
    std::vector<std::string> args;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if ((argv[i] == "--host" || argv[i] == "--port") && i + 1 < argv.size()) {
            ++i;
        } else {
            args.push_back(argv[i]);
        }
    }
    return args;
}

std::optional<RecordedMatrix> recordedMatrixFromName(const std::string& name) {
    if (name == "cpu") {
        return RecordedMatrix::Cpu;
    }
    if (name == "vulkan") {
        return RecordedMatrix::Vulkan;
    }
    return std::nullopt;
}

std::string recordedRunsDirectory(RecordedMatrix matrix) {
    return std::string(LLAMAFIT_RECORDED_ROOT) + "/" +
           (matrix == RecordedMatrix::Vulkan ? "vulkan-lavapipe-b11669" : "cpu-b11669");
}

void PrintTo(const RecordedCase& recordedCase, std::ostream* out) {
    *out << recordedCase.name;
}

std::vector<RecordedCase> recordedCases(RecordedMatrix matrix) {
    std::map<std::string, RecordedCase> byName;
    const auto cases = matrix == RecordedMatrix::Vulkan ? vulkanIntegrationCases() : integrationCases();
    for (const IntegrationCase& matrixCase : cases) {
        byName[matrixCase.name()] = {matrixCase.name(), matrixCase, std::nullopt};
    }
    for (const std::string& path : recordedRunFiles(recordedRunsDirectory(matrix))) {
        const std::string name = std::filesystem::path(path).stem().string();
        byName[name].name = name;
        byName[name].recordingPath = path;
    }
    std::vector<RecordedCase> result;
    for (auto& [name, recordedCase] : byName) {
        result.push_back(std::move(recordedCase));
    }
    return result;
}

Result<ModelInfo> recordedShapeModel(const IntegrationShape& shape) {
    static std::map<std::string, Result<ModelInfo>> models;
    if (const auto it = models.find(shape.name); it != models.end()) {
        return it->second;
    }
    Result<ModelInfo> model = [&]() -> Result<ModelInfo> {
        const auto spec = loadIntegrationShape(shape);
        if (!spec) {
            return spec.error();
        }
        const auto file = ggufFileForSpec(*spec);
        if (!file) {
            return file.error();
        }
        return interpretModel(*file);
    }();
    models.emplace(shape.name, model);
    return model;
}

Result<RecordedVerdict> judgeRecordedCase(const RecordedCase& recordedCase, RecordedMatrix matrix) {
    if (!recordedCase.matrixCase) {
        return makeError("test.out-of-step", *recordedCase.recordingPath +
                                                 " records a case that the matrix no longer has" +
                                                 rerecord(matrix));
    }
    if (!recordedCase.recordingPath) {
        return makeError("test.out-of-step", "the integration case " + recordedCase.name +
                                                 " has no recording in " + recordedRunsDirectory(matrix) +
                                                 rerecord(matrix));
    }
    const IntegrationCase& matrixCase = *recordedCase.matrixCase;
    const auto run = readRecordedRun(*recordedCase.recordingPath);
    if (!run) {
        return run.error();
    }
    RecordedVerdict result;
    result.serverVersion = run->serverVersion;
    if (run->notRecorded) {
        result.notRecorded = run->notRecorded;
        return result;
    }

    // The recording must be of this case as it is defined now: same shape, same settings.
    const auto parsed = parseServerArgs(settingsArgs(run->argv));
    if (!parsed) {
        return parsed.error();
    }
    if (std::filesystem::path(parsed->model).filename().string() != matrixCase.shape.name + ".gguf" ||
        !(parsed->settings == matrixCase.settings)) {
        return makeError("test.out-of-step", "the recording ran `llama-server " + joinedWords(run->argv) +
                                                 "`, which is not the case as it is defined now" +
                                                 rerecord(matrix));
    }

    const auto model = recordedShapeModel(matrixCase.shape);
    if (!model) {
        return model.error();
    }
    const auto log = parseAllocationLog(run->log);
    if (!log) {
        return log.error();
    }
    result.verdict = judgeServerRun(estimateMemory(*model, matrixCase.settings, matrixCase.gpus), *log);
    return result;
}

} // namespace llamafit::test

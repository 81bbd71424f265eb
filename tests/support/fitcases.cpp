// The fit cases and their recordings; see fitcases.h.

#include "tests/support/fitcases.h"

#include "core/flags/fitflags.h"
#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/fitreplica.h"
#include "tests/support/modelfiles.h"

#include <map>
#include <sstream>

namespace llamafit::test {

namespace {

FitCase cpu(std::string name, std::string shape, std::vector<std::string> args,
            std::optional<std::uint32_t> leaveMiB = std::nullopt, std::string knownDifference = {}) {
    return {std::move(name), std::move(shape),          std::nullopt, FitRig::Cpu, std::move(args),
            leaveMiB,        std::move(knownDifference)};
}

// llama-fit-params (not llama-server) reserves n_batch logits rows: with a vocabulary whose
// 512-row logits are about the size of the KQ mask, the compute-buffer rule (computebuffer.cpp:
// the logits reuse the mask's blocks only when smaller) over-predicts its dry run.
constexpr const char* kBatchLogitsCompute =
    "llama-fit-params' worst-case graph holds n_ubatch logits rows (llama-server's holds one per slot); with "
    "logits about as large as the KQ mask the estimate's compute buffer is off (lfm2 at 128000 tokens: "
    "263.02 "
    "MiB estimated, 162 MiB measured), so the interpolated context differs";

} // namespace

std::vector<FitCase> fitCases() {
    return {
        // CPU only: fit can only shrink an unset context, into the host's total memory.
        cpu("cpu_llama_default", "llama", {}),
        cpu("cpu_llama_leave5000", "llama", {}, 5000),
        cpu("cpu_llama_leave3500", "llama", {}, 3500),
        cpu("cpu_llama_leave2600_fails", "llama", {}, 2600),
        cpu("cpu_llama_c8192_set_by_user", "llama", {"-c", "8192"}, 5000),
        cpu("cpu_llama_c0_full_context", "llama", {"-c", "0"}, 5000),
        cpu("cpu_llama_c0_then_fitc", "llama", {"-c", "0", "-fitc", "4096"}, 5000),
        cpu("cpu_llama_np2", "llama", {"-np", "2"}, 5000),
        cpu("cpu_llama_np3_fitc5000", "llama", {"-np", "3", "-fitc", "5000"}, 6000),
        cpu("cpu_llama_np4_ub256", "llama", {"-np", "4", "-ub", "256"}, 5000),
        cpu("cpu_llama_q8_0", "llama", {"-ctk", "q8_0", "-ctv", "q8_0"}, 4000),
        cpu("cpu_llama_faoff", "llama", {"-fa", "off"}, 5000),
        cpu("cpu_llama_ub1024", "llama", {"-ub", "1024"}, 5000),
        cpu("cpu_llama_ngl_user", "llama", {"-ngl", "7"}, 5000),
        cpu("cpu_llama_fitc_above_train", "llama", {"-fitc", "200000"}, 5000),
        cpu("cpu_qwen2", "qwen2", {}, 1500),
        cpu("cpu_qwen3", "qwen3", {}, 2500),
        cpu("cpu_gemma3_swa", "gemma3", {}, 1400),
        cpu("cpu_gemma2_swa", "gemma2", {}, 4000),
        cpu("cpu_cohere2", "cohere2", {}, 4000),
        cpu("cpu_qwen3moe", "qwen3moe", {}, 9000),
        cpu("cpu_qwen35moe_too_big", "qwen35moe", {}),
        cpu("cpu_granitehybrid", "granitehybrid", {}, 700),
        cpu("cpu_falcon_h1", "falcon-h1", {}, 1200),
        cpu("cpu_lfm2", "lfm2", {}, 700, kBatchLogitsCompute),
        cpu("cpu_mamba_default", "mamba", {}),
        cpu("cpu_deepseek2_mla", "deepseek2-mla", {}, 17000),
        cpu("cpu_gpt_oss", "gpt-oss", {}, 12500),
    };
}

std::string fitCaseModelFile(const FitCase& fitCase) {
    return fitCase.shape + (fitCase.weightType ? "-" + std::string(ggmlTypeName(*fitCase.weightType)) : "") +
           ".gguf";
}

std::string formatFitRecording(const std::string& caseName, const FitRecording& recording) {
    std::ostringstream out;
    out << "# llama-fit-params run of the fit case " << caseName
        << ": written by tests/integration/fitparams_test.cpp (LLAMAFIT_RECORD_FIT_DIR), do not edit\n";
    out << "args:";
    for (const std::string& arg : recording.args) {
        out << " " << arg;
    }
    out << "\nhost-total-bytes: " << recording.hostTotalBytes << "\n";
    for (const FitDeviceRecord& device : recording.devices) {
        out << "device: " << device.name << " " << device.freeMiB << "\n";
    }
    out << "exit: " << recording.exitCode << "\n";
    out << "stdout: " << recording.stdoutText << "\n";
    if (!recording.reason.empty()) {
        out << "reason: " << recording.reason << "\n";
    }
    return out.str();
}

Result<FitRecording> parseFitRecording(const std::string& text) {
    FitRecording recording;
    std::istringstream in(text);
    std::string line;
    std::map<std::string, bool> seen;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) {
            return makeError("test.bad-recording", "no 'key:' in line '" + line + "'");
        }
        const std::string key = line.substr(0, colon);
        const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
        seen[key] = true;
        std::istringstream words(value);
        if (key == "args") {
            for (std::string word; words >> word;) {
                recording.args.push_back(word);
            }
        } else if (key == "host-total-bytes") {
            words >> recording.hostTotalBytes;
        } else if (key == "device") {
            FitDeviceRecord device;
            words >> device.name >> device.freeMiB;
            recording.devices.push_back(device);
        } else if (key == "exit") {
            words >> recording.exitCode;
        } else if (key == "stdout") {
            recording.stdoutText = value;
        } else if (key == "reason") {
            recording.reason = value;
        } else {
            return makeError("test.bad-recording", "unknown key '" + key + "'");
        }
    }
    for (const char* key : {"args", "host-total-bytes", "exit", "stdout"}) {
        if (!seen[key]) {
            return makeError("test.bad-recording", std::string("no '") + key + ":' line");
        }
    }
    return recording;
}

Result<FitReplicaAnswer> replicaAnswer(const FitCase& fitCase, const FitRecording& recording) {
    Result<ModelSpec> spec = loadShape(fitCase.shape);
    if (!spec) {
        return spec.error();
    }
    ModelFileOptions options;
    options.weightType = fitCase.weightType;
    Result<GgufFile> file = ggufFileForSpec(*spec, options);
    if (!file) {
        return file.error();
    }
    Result<ModelInfo> model = interpretModel(*file);
    if (!model) {
        return model.error();
    }
    Result<ParsedServerArgs> parsed = parseServerArgs(recording.args);
    if (!parsed) {
        return parsed.error();
    }
    Result<FitParams> params = readFitParams(*parsed);
    if (!params) {
        return params.error();
    }
    FitRequest request;
    request.settings = parsed->settings;
    request.params = *params;
    request.program = FitProgram::LlamaFitParams;
    request.hostTotalBytes = recording.hostTotalBytes;
    for (const FitDeviceRecord& device : recording.devices) {
        GpuDevice gpu;
        gpu.name = device.name;
        gpu.memoryBytes = device.freeMiB * 1024 * 1024;
        gpu.backend = Backend::Vulkan;
        request.gpus.push_back(gpu);
    }
    Result<FitOutcome> outcome = replicateLlamaFit(*model, request);
    if (!outcome) {
        return outcome.error();
    }
    FitReplicaAnswer answer;
    if (outcome->status == FitStatus::Failed) {
        answer.exitCode = 1;
        answer.reason = "failed to fit params to free device memory: " + outcome->failure;
    } else {
        answer.stdoutText = fitArgumentsText(*outcome);
    }
    return answer;
}

} // namespace llamafit::test

// The fit cases and their recordings; see fitcases.h.

#include "tests/support/fitcases.h"

#include "core/flags/fitflags.h"
#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/fitreplica.h"
#include "core/sizing/rpcdevices.h"
#include "tests/support/modelfiles.h"
#include "tests/support/shapecut.h"
#include "tests/support/shapegeometry.h"
#include "tests/support/vulkancases.h"

#include <map>
#include <sstream>

namespace llamafit::test {

namespace {

FitCase cpu(std::string name, std::string shape, std::vector<std::string> args,
            std::optional<std::uint32_t> leaveMiB = std::nullopt, std::string knownDifference = {}) {
    return {std::move(name), std::move(shape),          std::nullopt, FitRig::Cpu, std::move(args),
            leaveMiB,        std::move(knownDifference)};
}

// lavapipe's Vulkan0 (2048 MiB, 128 MiB storage-buffer range).
FitCase vulkan(std::string name, std::string shape, std::vector<std::string> args,
               std::string knownDifference = {}) {
    return {std::move(name), std::move(shape),          std::nullopt, FitRig::Vulkan, std::move(args),
            std::nullopt,    std::move(knownDifference)};
}

// Two RPC servers; `leaveMiB` sets -fitt for both.
FitCase rpc(std::string name, std::string shape, std::vector<std::string> args, std::uint32_t leaveMiB,
            std::string knownDifference = {}) {
    std::string endpoints = rpcFitEndpoints()[0] + "," + rpcFitEndpoints()[1];
    args.insert(args.begin(), {"--rpc", endpoints});
    return {std::move(name), std::move(shape),          std::nullopt, FitRig::Rpc, std::move(args),
            leaveMiB,        std::move(knownDifference)};
}

} // namespace

const std::vector<std::string>& rpcFitEndpoints() {
    static const std::vector<std::string> endpoints{"127.0.0.1:50052", "127.0.0.1:50053"};
    return endpoints;
}

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
        cpu("cpu_lfm2", "lfm2", {}, 700),
        cpu("cpu_mamba_default", "mamba", {}),
        cpu("cpu_deepseek2_mla", "deepseek2-mla", {}, 17000),
        cpu("cpu_gpt_oss", "gpt-oss", {}, 12500),
        // lavapipe (2048 MiB free): output matrices over its 128 MiB range stay on the CPU with
        // their logits; the llama shape needs its layers cut (-ngl).
        vulkan("vk_qwen3", "qwen3", {}),
        vulkan("vk_qwen3_fitt512", "qwen3", {"-fitt", "512"}),
        vulkan("vk_qwen2", "qwen2", {}),
        vulkan("vk_gemma3", "gemma3", {}),
        vulkan("vk_llama", "llama", {}),
        vulkan("vk_lfm2", "lfm2", {}),
        vulkan("vk_granitehybrid", "granitehybrid", {}),
        vulkan("vk_mamba2", "mamba2", {}),
        vulkan("vk_qwen3moe", "qwen3moe", {}),
        vulkan("vk_qwen3_faoff", "qwen3", {"-fa", "off"}),
        vulkan("vk_gemma3_fitt1500", "gemma3", {"-fitt", "1500"}),
        vulkan("vk_gpt_oss", "gpt-oss", {}),
        // Two RPC servers with the host's memory: fit splits the layers (-ts) once the targets bite.
        rpc("rpc_qwen3_no_changes", "qwen3", {}, 3105),
        rpc("rpc_qwen3_leave1105", "qwen3", {}, 1105),
        rpc("rpc_qwen3_leave605", "qwen3", {}, 605),
        rpc("rpc_qwen2_no_changes", "qwen2", {}, 1105),
        rpc("rpc_gemma3_no_changes", "gemma3", {}, 2105),
        rpc("rpc_qwen3_leave2105", "qwen3", {}, 2105),
        rpc("rpc_qwen2_leave505", "qwen2", {}, 505),
        rpc("rpc_gemma3_leave1105", "gemma3", {}, 1105),
    };
}

std::string fitCaseModelFile(const FitCase& fitCase) {
    std::string geometry;
    if (!fitCase.geometry.empty()) {
        geometry = "-" + fitCase.geometry.substr(fitCase.geometry.find('/') + 1) + "-l" +
                   std::to_string(fitCase.blocks);
    }
    return fitCase.shape + geometry +
           (fitCase.weightType ? "-" + std::string(ggmlTypeName(*fitCase.weightType)) : "") + ".gguf";
}

Result<ModelSpec> fitCaseSpec(const FitCase& fitCase) {
    Result<ModelSpec> spec = loadShape(fitCase.shape);
    if (!spec || fitCase.geometry.empty()) {
        return spec;
    }
    spec = reshapeToGeometry(*spec, fitCase.geometry);
    if (!spec) {
        return spec;
    }
    return cutShape(*spec, {fitCase.blocks, std::nullopt});
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
    Result<ModelSpec> spec = fitCaseSpec(fitCase);
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
    for (std::size_t i = 0; i < recording.devices.size(); ++i) {
        const FitDeviceRecord& device = recording.devices[i];
        const std::uint64_t freeBytes = device.freeMiB * 1024 * 1024;
        if (fitCase.rig == FitRig::Rpc) {
            if (i >= parsed->settings.rpcServers.size()) {
                return makeError("test.bad-recording", "device " + device.name + " has no --rpc endpoint");
            }
            request.gpus.push_back(rpcDevice(parsed->settings.rpcServers[i], freeBytes));
            continue;
        }
        GpuDevice gpu = lavapipeDevice(); // the Vulkan rig's only device, with its limits
        gpu.name = device.name;
        gpu.memoryBytes = freeBytes;
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

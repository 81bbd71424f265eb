#include "tests/integration/matrixcaserun.h"

#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/servercomparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>

namespace llamafit::test {
namespace {

std::string argvText(const ServerRunOptions& options, const ServerRunResult& run) {
    std::string text;
    for (const std::string& arg : options.args) {
        text += arg + "\n";
    }
    return text + "--host\n127.0.0.1\n--port\n" + std::to_string(run.port) + "\n";
}

// Memory the server really touches: the KV/RS caches are cleared at creation, repacked
// weights and weights loaded into a device are copied; mapped weights of a sparse file and the
// (untouched) compute buffer are not. A device (lavapipe's memory is host memory) holds at most
// its size, whatever the estimate puts on it: llama.cpp fails to allocate beyond that.
std::uint64_t touchedBytes(const MemoryEstimate& estimate, const std::vector<GpuDevice>& gpus) {
    std::uint64_t total = 0;
    for (const auto& device : estimate.devices) {
        std::uint64_t bytes = device.bytes.kvBytes + device.bytes.rsBytes;
        for (const auto& buffer : device.buffers) {
            const bool mapped = buffer.bufferType.size() > 7 &&
                                buffer.bufferType.compare(buffer.bufferType.size() - 7, 7, "_Mapped") == 0;
            bytes += buffer.component == Component::Model && !mapped ? buffer.bytes : 0;
        }
        for (const GpuDevice& gpu : gpus) {
            bytes = !device.host && gpu.name == device.name ? std::min(bytes, gpu.memoryBytes) : bytes;
        }
        total += bytes;
    }
    return total;
}

std::uint64_t touchLimitBytes() {
    const char* text = std::getenv("LLAMAFIT_INTEGRATION_MAX_MIB");
    const std::uint64_t mib = text && *text ? std::strtoull(text, nullptr, 10) : 6144;
    return mib * 1024 * 1024;
}

// readGgufModel + interpretModel, once per model file in this process (a shape has ~20 cases).
Result<ModelInfo> modelOf(const std::string& path) {
    static std::map<std::string, Result<ModelInfo>> models;
    if (const auto it = models.find(path); it != models.end()) {
        return it->second;
    }
    const auto file = readGgufModel(path);
    Result<ModelInfo> model = file.ok() ? interpretModel(*file) : Result<ModelInfo>(file.error());
    models.emplace(path, model);
    return model;
}

} // namespace

std::string logTail(const std::string& log, std::size_t bytes) {
    return log.size() <= bytes ? log : "..." + log.substr(log.size() - bytes);
}

void keepForRecording(const std::string& name, const std::string& extension, const std::string& text) {
    if (const char* dir = std::getenv("LLAMAFIT_KEEP_LOGS"); dir && *dir) {
        std::ofstream(std::string(dir) + "/" + name + extension) << text;
    }
}

void checkCaseAgainstServer(const IntegrationCase& testCase, const std::string& server) {
    std::string error;
    const std::string& directory = scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    const std::string path = materializeShape(testCase.shape, directory, error);
    ASSERT_FALSE(path.empty()) << error;

    const auto model = modelOf(path);
    ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
    const auto estimate = estimateMemory(*model, testCase.settings, testCase.gpus);
    const std::uint64_t touched = estimate.ok() ? touchedBytes(*estimate, testCase.gpus) : 0;
    if (touched > touchLimitBytes()) {
        const std::string reason = "the server would touch " + std::to_string(touched / (1024 * 1024)) +
                                   " MiB of real memory (LLAMAFIT_INTEGRATION_MAX_MIB is " +
                                   std::to_string(touchLimitBytes() / (1024 * 1024)) + ")";
        keepForRecording(testCase.name(), ".skipped", reason + "\n");
        GTEST_SKIP() << reason;
    }

    ServerRunOptions options;
    options.executable = server;
    options.args = {"-m", path, "-lv", "4", "--no-warmup", "-fit", "off", "-t", "2"};
    for (const std::string& arg : toServerArgs(testCase.settings)) {
        options.args.push_back(arg);
    }
    options.environment = {{"LLAMAFIT_NO_POPULATE", "1"}};
    options.stopGrace = std::chrono::seconds(3);
    const auto run = runLlamaServer(options);
    ASSERT_TRUE(run.ok()) << run.error().message;
    keepForRecording(testCase.name(), ".log", run->log);
    keepForRecording(testCase.name(), ".argv", argvText(options, *run));
    ASSERT_FALSE(run->timedOut) << "llama-server did not finish allocating within the timeout:\n"
                                << logTail(run->log);
    // The devices the estimate was told about must be the server's: llama.cpp lists each one
    // at start ("common_param:   - Vulkan0 : llvmpipe (...) (2048 MiB, 2048 MiB free)").
    for (const GpuDevice& gpu : testCase.gpus) {
        ASSERT_NE(run->log.find("- " + gpu.name + " : "), std::string::npos)
            << server << " lists no device " << gpu.name << " (is Mesa's lavapipe installed?):\n"
            << logTail(run->log);
    }

    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok()) << log.error().message;
    const RunVerdict verdict = judgeServerRun(estimate, *log);
    if (!verdict.summary.empty()) {
        std::cout << "[ compare  ] " << testCase.name() << ": " << verdict.summary << std::endl;
    }
    EXPECT_TRUE(verdict.passed) << testCase.name() << ": " << verdict.failure
                                << (log->reserveComplete || !estimate.ok() ? "" : "\n" + logTail(run->log));
}

} // namespace llamafit::test

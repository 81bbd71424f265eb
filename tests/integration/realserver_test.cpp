// The proof of the sizing core: for every shape x settings case, write the sparse GGUF,
// run the real llama-server 0.7.0 on it (-lv 4 --no-warmup -fit off -t 2), parse what it
// allocated, and compare with estimateMemory(interpretModel(readGgufModel(file)), settings).
// Cases and tolerances: integrationcases.cpp, servercomparison.h.
//
// Environment: LLAMAFIT_LLAMA_SERVER (the server wrapper; default from CMake),
// LLAMAFIT_KEEP_LOGS=DIR (write every server log there), LLAMAFIT_INTEGRATION_MAX_MIB
// (real memory a case may make the server touch; default 6144).

#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/integration/integrationcases.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/integration/servercomparison.h"
#include "tests/support/llamaserverrun.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>

namespace llamafit::test {

// gtest names a failing parameter with this instead of a byte dump.
void PrintTo(const IntegrationCase& testCase, std::ostream* out) {
    *out << testCase.name();
}

namespace {

std::string tail(const std::string& log, std::size_t bytes = 3000) {
    return log.size() <= bytes ? log : "..." + log.substr(log.size() - bytes);
}

void keepLog(const std::string& name, const std::string& log) {
    if (const char* dir = std::getenv("LLAMAFIT_KEEP_LOGS"); dir && *dir) {
        std::ofstream(std::string(dir) + "/" + name + ".log") << log;
    }
}

// Memory the server really touches: the KV/RS caches are cleared at creation, repacked
// weights are copied; mapped weights of a sparse file and the (untouched) compute buffer are not.
std::uint64_t touchedBytes(const MemoryEstimate& estimate) {
    std::uint64_t bytes = estimate.totals.kvBytes + estimate.totals.rsBytes;
    for (const auto& device : estimate.devices) {
        for (const auto& buffer : device.buffers) {
            const bool mapped = buffer.bufferType.size() > 7 &&
                                buffer.bufferType.compare(buffer.bufferType.size() - 7, 7, "_Mapped") == 0;
            bytes += buffer.component == Component::Model && !mapped ? buffer.bytes : 0;
        }
    }
    return bytes;
}

std::uint64_t touchLimitBytes() {
    const char* text = std::getenv("LLAMAFIT_INTEGRATION_MAX_MIB");
    const std::uint64_t mib = text && *text ? std::strtoull(text, nullptr, 10) : 6144;
    return mib * 1024 * 1024;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) {
        text += "\n  " + line;
    }
    return text;
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

class RealServerTest : public ::testing::TestWithParam<IntegrationCase> {};

TEST_P(RealServerTest, AllocationMatchesEstimate) {
    const IntegrationCase& testCase = GetParam();
    const auto server = findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    std::string error;
    const std::string& directory = scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    const std::string path = materializeShape(testCase.shape, directory, error);
    ASSERT_FALSE(path.empty()) << error;

    const auto model = modelOf(path);
    ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
    const auto estimate = estimateMemory(*model, testCase.settings);
    if (estimate.ok() && touchedBytes(*estimate) > touchLimitBytes()) {
        GTEST_SKIP() << "the server would touch " << touchedBytes(*estimate) / (1024 * 1024)
                     << " MiB of real memory (LLAMAFIT_INTEGRATION_MAX_MIB is "
                     << touchLimitBytes() / (1024 * 1024) << ")";
    }

    ServerRunOptions options;
    options.executable = *server;
    options.args = {"-m", path, "-lv", "4", "--no-warmup", "-fit", "off", "-t", "2"};
    for (const std::string& arg : toServerArgs(testCase.settings)) {
        options.args.push_back(arg);
    }
    options.environment = {{"LLAMAFIT_NO_POPULATE", "1"}};
    options.stopGrace = std::chrono::seconds(3);
    const auto run = runLlamaServer(options);
    ASSERT_TRUE(run.ok()) << run.error().message;
    keepLog(testCase.name(), run->log);
    ASSERT_FALSE(run->timedOut) << "llama-server did not finish allocating within the timeout:\n"
                                << tail(run->log);

    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok()) << log.error().message;
    if (!estimate.ok()) {
        EXPECT_TRUE(log->loadFailed) << "the estimate refuses these settings (" << estimate.error().code
                                     << ": " << estimate.error().message << ") but llama-server loaded them";
        return;
    }
    ASSERT_TRUE(log->reserveComplete)
        << "llama-server failed where the estimate expects it to load:" << joined(log->errorLines) << "\n"
        << tail(run->log);

    const ServerComparison comparison = compareWithServer(*estimate, *log);
    std::cout << "[ compare  ] " << testCase.name() << ": " << comparison.summary << std::endl;
    EXPECT_TRUE(comparison.ok()) << testCase.name()
                                 << " differs from llama-server:" << joined(comparison.mismatches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RealServerTest, ::testing::ValuesIn(integrationCases()),
                         [](const ::testing::TestParamInfo<IntegrationCase>& info) {
                             return info.param.name();
                         });

} // namespace
} // namespace llamafit::test

// The sizing core against public llama.cpp logs of real GPUs (CUDA, ROCm, Vulkan, Metal), collected
// in tests/data/public-logs (README.md there: sources, format, what each log proves). For every
// log the model is rebuilt from its geometry (a spec of the folder or a built-in card), the
// logged settings are replayed through parseServerArgs, and estimateMemory() is compared per
// device and buffer with what the log printed (parseAllocationLog):
//   KV, RS and output buffers equal to the printed 0.01 MiB -- this proves the rebuild is right;
//   model buffers within the entry's weight tolerance (public files mix quant types per tensor);
//   device and host compute buffers within 10 %.
// Logs we cannot reproduce are listed in the manifest with their reason; the test prints them
// with their ratios and asserts nothing on them, so the list is never silent.

#include "core/flags/serverargs.h"
#include "core/model/loaderchecks.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "core/sizing/llamabuild.h"
#include "tests/support/modelfiles.h"
#include "tests/unit/publiclogs/publiclog.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace llamafit::test {

// gtest names a failing parameter by this instead of its bytes.
void PrintTo(const PublicLog& log, std::ostream* out) {
    *out << log.logFile;
}

namespace {

constexpr const char* kPublicLogsDir = LLAMAFIT_PUBLIC_LOGS_DIR;
constexpr double kComputeTolerance = 0.10;
// Two decimals per printed line; a device's KV can be the sum of two lines (iSWA).
constexpr double kPrintedMiB = 0.015;

std::vector<PublicLog> manifest() {
    auto logs = readPublicLogManifest(kPublicLogsDir);
    return logs ? *logs : std::vector<PublicLog>{};
}

Result<ModelInfo> modelOf(const PublicLog& log) {
    Result<ModelSpec> spec = log.card.empty()
                                 ? loadModelSpecFile(std::string(kPublicLogsDir) + "/" + log.specFile)
                                 : findBuiltinModelCard(log.card);
    if (!spec) {
        return spec.error();
    }
    auto file = ggufFileForSpec(*spec);
    if (!file) {
        return file.error();
    }
    Result<ModelInfo> info = interpretModel(*file);
    if (!info) {
        return info.error();
    }
    // These rebuild models real servers loaded: the loader's checks (tensor shapes included) must
    // accept every one.
    if (Result<bool> loadable = checkLoadable(*file, *info); !loadable) {
        return loadable.error();
    }
    return info;
}

Result<std::string> readText(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return makeError("test.read-failed", "cannot read " + path);
    }
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Rebuilt {
    MemoryEstimate estimate;
    AllocationLog log;
};

Result<Rebuilt> rebuild(const PublicLog& entry) {
    auto text = readText(std::string(kPublicLogsDir) + "/" + entry.logFile);
    if (!text) {
        return text.error();
    }
    auto log = parseAllocationLog(*text);
    if (!log) {
        return log.error();
    }
    auto model = modelOf(entry);
    if (!model) {
        return model.error();
    }
    auto args = parseServerArgs(entry.args);
    if (!args) {
        return args.error();
    }
    ServerSettings settings = args->settings;
    settings.llamaBuild = entry.llamaBuild;
    settings.outputReserve = entry.outputReserve;
    std::vector<GpuDevice> gpus;
    for (const PublicLogDevice& device : entry.devices) {
        GpuDevice gpu;
        gpu.name = device.name;
        gpu.memoryBytes = device.memoryMiB << 20;
        gpu.backend = entry.backend;
        gpus.push_back(gpu);
    }
    auto estimate = estimateMemory(*model, settings, gpus);
    if (!estimate) {
        return estimate.error();
    }
    return Rebuilt{std::move(*estimate), std::move(*log)};
}

// One compared figure: a component of a device that the log printed.
struct Row {
    std::string device;
    bool host = false;
    Component component = Component::Model;
    double predictedMiB = 0;
    double actualMiB = 0;
    double ratio() const { return actualMiB > 0 ? predictedMiB / actualMiB : 0; }
};

// The devices and components the log printed a line for ("where the log gives them").
std::set<std::pair<std::string, Component>> printed(const AllocationLog& log) {
    std::set<std::pair<std::string, Component>> out;
    const std::pair<const std::map<std::string, double>*, Component> maps[] = {
        {&log.modelMiB, Component::Model},
        {&log.kvMiB, Component::Kv},
        {&log.rsMiB, Component::Rs},
        {&log.outputMiB, Component::Output},
        {&log.computeMiB, Component::Compute}};
    for (const auto& [byType, component] : maps) {
        for (const auto& [bufferType, mib] : *byType) {
            out.insert({deviceOfBufferType(bufferType), component});
        }
    }
    return out;
}

std::vector<Row> rowsOf(const Rebuilt& rebuilt) {
    std::vector<Row> rows;
    const auto lines = printed(rebuilt.log);
    for (const LoggedDevice& logged : rebuilt.log.devices()) {
        const DeviceEstimate* predicted = nullptr;
        for (const DeviceEstimate& device : rebuilt.estimate.devices) {
            if (device.host == logged.host && (logged.host || device.name == logged.name)) {
                predicted = &device;
            }
        }
        const std::pair<Component, double> components[] = {{Component::Model, logged.modelMiB},
                                                           {Component::Kv, logged.kvMiB},
                                                           {Component::Rs, logged.rsMiB},
                                                           {Component::Output, logged.outputMiB},
                                                           {Component::Compute, logged.computeMiB}};
        for (const auto& [component, actual] : components) {
            if (lines.count({logged.name, component}) == 0) {
                continue;
            }
            const double predictedMiB =
                predicted != nullptr ? static_cast<double>(predicted->bytes.get(component)) / 1048576.0 : 0;
            rows.push_back({logged.name, logged.host, component, predictedMiB, actual});
        }
    }
    return rows;
}

// Why a compute row of this log is not asserted; empty when it is.
const std::string& reasonFor(const PublicLog& entry, const Row& row) {
    return row.host ? entry.hostComputeReason : entry.deviceComputeReason;
}

std::string formatRow(const PublicLog& entry, const Row& row) {
    char line[256];
    std::snprintf(line, sizeof line, "%-44s %-7s %-8s %-8s %10.2f %10.2f %7.3f", entry.logFile.c_str(),
                  std::string(backendLabel(entry.backend)).c_str(), row.device.c_str(),
                  std::string(componentName(row.component)).c_str(), row.predictedMiB, row.actualMiB,
                  row.ratio());
    return line;
}

class PublicLogTest : public ::testing::TestWithParam<PublicLog> {};

TEST(PublicLogManifest, ReadsAndCoversTheBackends) {
    auto logs = readPublicLogManifest(kPublicLogsDir);
    ASSERT_TRUE(logs.ok()) << logs.error().message;
    std::set<Backend> reproduced;
    std::size_t count = 0;
    std::size_t fullyAsserted = 0; // device and host compute both held to 10 %
    for (const PublicLog& log : *logs) {
        if (log.reproduce) {
            reproduced.insert(log.backend);
            ++count;
            fullyAsserted += log.deviceComputeReason.empty() && log.hostComputeReason.empty() ? 1 : 0;
        }
    }
    EXPECT_GE(logs->size(), 15u);
    EXPECT_GE(count, 15u);
    // Issue 10's bar: at least 15 public GPU logs within 10 % for device and host compute.
    EXPECT_GE(fullyAsserted, 15u);
    for (Backend backend : {Backend::Cuda, Backend::Rocm, Backend::Vulkan, Backend::Metal}) {
        EXPECT_EQ(reproduced.count(backend), 1u) << backendLabel(backend) << " has no rebuilt log";
    }
}

TEST_P(PublicLogTest, MatchesTheLoggedBuffers) {
    const PublicLog& entry = GetParam();
    auto rebuilt = rebuild(entry);
    ASSERT_TRUE(rebuilt.ok()) << entry.logFile << ": " << rebuilt.error().code << " "
                              << rebuilt.error().message;
    const std::vector<Row> rows = rowsOf(*rebuilt);
    // Checked against its own build: the build number the log names, the master of its date, or the
    // first build of the generation an undated log is given.
    std::cout << "  " << entry.logFile << ": sized for llama.cpp " << sizedForText(entry.llamaBuild)
              << (!entry.buildDated.empty() ? ", the master of " + entry.buildDated
                  : !entry.undatedGeneration.empty()
                      ? ", the first build of " + entry.undatedGeneration + " (" + entry.build + ")"
                      : std::string())
              << "\n";
    for (const Row& row : rows) {
        const bool computeOff = row.component == Component::Compute && !reasonFor(entry, row).empty();
        std::cout << (!entry.reproduce ? "x " : computeOff ? "c " : "  ") << formatRow(entry, row) << "\n";
    }
    if (!entry.reproduce) {
        std::cout << "x " << entry.logFile << " not reproduced: " << entry.reason << "\n";
        GTEST_SKIP() << "not reproduced (listed in tests/data/public-logs/manifest.json): " << entry.reason;
    }
    ASSERT_FALSE(rows.empty()) << entry.logFile << ": no buffer lines parsed";
    bool anyCompute = false;
    for (const Row& row : rows) {
        const std::string what =
            entry.logFile + " " + row.device + " " + std::string(componentName(row.component));
        switch (row.component) {
        case Component::Kv:
        case Component::Rs:
        case Component::Output:
            EXPECT_NEAR(row.predictedMiB, row.actualMiB, kPrintedMiB) << what;
            break;
        case Component::Model:
            EXPECT_NEAR(row.ratio(), 1.0, entry.weightsTolerance) << what;
            break;
        case Component::Compute:
            anyCompute = true;
            if (reasonFor(entry, row).empty()) {
                EXPECT_NEAR(row.ratio(), 1.0, kComputeTolerance)
                    << what << ": predicted " << row.predictedMiB << " MiB, logged " << row.actualMiB
                    << " MiB";
            } else {
                // A listed miss that now comes within 10 % fails, so the fix shows and the reason goes.
                EXPECT_GT(std::abs(row.ratio() - 1.0), kComputeTolerance)
                    << what << " is within 10 % now (predicted " << row.predictedMiB << " MiB, logged "
                    << row.actualMiB << " MiB): drop its compute reason from the manifest";
            }
            break;
        default:
            break;
        }
    }
    EXPECT_TRUE(anyCompute) << entry.logFile << ": no compute line";
    if (!entry.deviceComputeReason.empty()) {
        std::cout << "c " << entry.logFile << " device compute not within 10 %: " << entry.deviceComputeReason
                  << "\n";
    }
    if (!entry.hostComputeReason.empty()) {
        std::cout << "c " << entry.logFile << " host compute not within 10 %: " << entry.hostComputeReason
                  << "\n";
    }
}

std::string nameOf(const ::testing::TestParamInfo<PublicLog>& info) {
    std::string name = info.param.logFile.substr(0, info.param.logFile.rfind('.'));
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) {
            c = '_';
        }
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(PublicLogs, PublicLogTest, ::testing::ValuesIn(manifest()), nameOf);

} // namespace
} // namespace llamafit::test

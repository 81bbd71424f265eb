#include "tests/integration/rpccaserun.h"

#include "tests/integration/matrixcaserun.h"

#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/rpcserverrun.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

namespace llamafit::test {
namespace {

std::string percent(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", 100.0 * (ratio - 1.0));
    return text;
}

} // namespace

void checkRpcCaseAgainstServer(const RpcCase& testCase) {
    const auto llamaServer = findGpuLlamaServer();
    ASSERT_TRUE(llamaServer.ok()) << llamaServer.error().message;
    const auto rpcServer = findRpcServer();
    ASSERT_TRUE(rpcServer.ok()) << rpcServer.error().message;
    std::string error;
    const std::string& directory = scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    const std::string path = materializeShape(testCase.shape, directory, error);
    ASSERT_FALSE(path.empty()) << error;

    // The servers live as long as this test (RAII: stopped, with their process group, on any exit).
    std::vector<std::unique_ptr<RpcServerRun>> servers;
    std::vector<std::string> endpoints;
    for (std::size_t i = 0; i < testCase.settings.rpcServers.size(); ++i) {
        auto server = RpcServerRun::start(*rpcServer, {{"GGML_VK_VISIBLE_DEVICES", ""}});
        ASSERT_TRUE(server.ok()) << server.error().code << ": " << server.error().message;
        endpoints.push_back((*server)->endpoint());
        servers.push_back(std::move(*server));
    }
    const std::vector<std::string>& recorded = recordedRpcEndpoints();
    const ServerSettings settings = withEndpoints(testCase.settings, recorded, endpoints);

    ServerRunOptions options;
    options.executable = *llamaServer;
    options.args = {"-m", path, "-lv", "4", "--no-warmup", "-fit", "off", "-t", "2"};
    for (const std::string& arg : toServerArgs(settings)) {
        options.args.push_back(arg);
    }
    options.environment = {{"LLAMAFIT_NO_POPULATE", "1"},
                           {"GGML_VK_VISIBLE_DEVICES", testCase.withVulkan ? "0" : ""}};
    options.stopGrace = std::chrono::seconds(3);
    const auto run = runLlamaServer(options);
    ASSERT_TRUE(run.ok()) << run.error().message;
    std::string argv;
    for (const std::string& arg : options.args) {
        argv += arg + "\n";
    }
    keepForRecording(testCase.name(), ".log", withEndpoints(run->log, endpoints, recorded));
    keepForRecording(testCase.name(), ".argv",
                     withEndpoints(argv, endpoints, recorded) + "--host\n127.0.0.1\n--port\n" +
                         std::to_string(run->port) + "\n");
    ASSERT_FALSE(run->timedOut) << "llama-server did not finish allocating in time:\n" << logTail(run->log);

    const auto file = readGgufModel(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    const auto model = interpretModel(*file);
    ASSERT_TRUE(model.ok()) << model.error().message;
    const auto devices = devicesFromLog(settings, run->log);
    ASSERT_TRUE(devices.ok()) << devices.error().message << "\n" << logTail(run->log);
    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok()) << log.error().message;
    const RpcVerdict verdict = judgeRpcRun(estimateMemory(*model, settings, *devices), *log);
    for (const ComputeFigure& figure : verdict.compute) {
        std::cout << "[ compute  ] " << testCase.name() << " " << figure.bufferType << ": predicted "
                  << figure.predictedMiB << " MiB, logged " << figure.loggedMiB << " MiB ("
                  << percent(figure.ratio()) << ")" << std::endl;
    }
    EXPECT_TRUE(verdict.passed) << testCase.name() << ": " << verdict.failure
                                << (log->reserveComplete ? "" : "\n" + logTail(run->log));
}

} // namespace llamafit::test

// llama.cpp's own fit against the replica: for every fit case (tests/support/fitcases.h) run the
// real llama-fit-params 0.7.0 (b11669) on the case's sparse GGUF (CPU-only build, or the
// multi-backend build with lavapipe's Vulkan0, or with two ggml-rpc-server -d CPU on 127.0.0.1 that
// the test starts and stops per case), read the free memory it measured against from its
// own log (the first common_memory_breakdown_print table; the host's total from "MiB of total host
// memory"), then run `llamafit-cli fit --as-llama-fit-params` with the same figures and require
// the same stdout, exit status and failure reason. Each tool run takes about a second.
//
// Environment: LLAMAFIT_RECORD_FIT_DIR=DIR writes each case's recording there
// (tests/data/fit-recorded/b11669 is that folder, checked by tests/unit/recorded/fitrecorded_test.cpp).

#include "core/common/units.h"
#include "core/flags/fitflags.h"
#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/machine/meminfo.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/sizing/fitreplica.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/commandrun.h"
#include "tests/support/fitcases.h"
#include "tests/support/fitholdoutcases.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"
#include "tests/support/readtext.h"
#include "tests/support/rpccases.h"
#include "tests/support/rpcserverrun.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace llamafit::test {

void PrintTo(const FitCase& fitCase, std::ostream* out) {
    *out << fitCase.name;
}

namespace {

constexpr const char* kFailurePrefix = "failed to fit params to free device memory: ";

std::string withoutTrailingNewline(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
        text.pop_back();
    }
    return text;
}

// The text after "failed to fit params to free device memory: " on the tool's (or our) stderr.
std::string failureReason(const std::string& log) {
    const std::size_t at = log.find(kFailurePrefix);
    if (at == std::string::npos) {
        return {};
    }
    const std::size_t end = log.find('\n', at);
    return log.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::string toolPath(FitRig rig) {
    const Result<std::string> server = findLlamaServer();
    if (!server) {
        return {};
    }
    const std::filesystem::path folder = std::filesystem::path(*server).parent_path();
    return (rig == FitRig::Cpu ? folder / "llama-fit-params" : folder / "gpu" / "llama-fit-params").string();
}

// The RPC rig hides lavapipe (the GPU wrappers show it by default), so the devices are the servers.
std::string commandLine(const std::string& program, const std::vector<std::string>& args,
                        const std::string& errPath, FitRig rig = FitRig::Cpu) {
    std::string line = std::string(rig == FitRig::Rpc ? "GGML_VK_VISIBLE_DEVICES= " : "") +
                       "LLAMAFIT_NO_POPULATE=1 " + shellQuote(program);
    for (const std::string& arg : args) {
        line += " " + shellQuote(arg);
    }
    return line + " 2>" + shellQuote(errPath);
}

std::string modelPath(const FitCase& fitCase, const std::string& directory, std::string& error) {
    const std::string path = directory + "/" + fitCaseModelFile(fitCase);
    if (std::filesystem::exists(path)) {
        return path;
    }
    Result<ModelSpec> spec = fitCaseSpec(fitCase);
    if (!spec) {
        error = spec.error().message;
        return {};
    }
    ModelFileOptions options;
    options.weightType = fitCase.weightType;
    if (Result<GgufFile> written = writeSpecAsGguf(*spec, path, options); !written) {
        error = written.error().message;
        return {};
    }
    return path;
}

class FitParamsLive : public ::testing::TestWithParam<FitCase> {};

TEST_P(FitParamsLive, ReplicaPrintsWhatLlamaFitParamsPrints) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const FitCase& fitCase = GetParam();
    const std::string tool = toolPath(fitCase.rig);
    ASSERT_TRUE(std::filesystem::exists(tool))
        << "no llama-fit-params at '" << tool << "': run scripts/fetch-llama-server.sh";
    std::string error;
    const std::string& scratch = scratchDirectory(error);
    ASSERT_FALSE(scratch.empty()) << error;
    const std::string model = modelPath(fitCase, scratch, error);
    ASSERT_FALSE(model.empty()) << error;

    Result<HostMemory> host = parseMemInfo(readText("/proc/meminfo"));
    ASSERT_TRUE(host) << host.error().message;
    FitRecording recording;
    recording.hostTotalBytes = host->memTotalBytes;
    recording.args = {"-t", "2"};
    recording.args.insert(recording.args.end(), fitCase.args.begin(), fitCase.args.end());
    if (fitCase.leaveMiB) {
        recording.args.push_back("-fitt");
        recording.args.push_back(std::to_string(host->memTotalBytes / kMiB - *fitCase.leaveMiB));
    }

    // The RPC rig's two servers on loopback, stopped when the case ends (RpcServerRun).
    std::vector<std::unique_ptr<RpcServerRun>> servers;
    std::vector<std::string> liveEndpoints;
    if (fitCase.rig == FitRig::Rpc) {
        const Result<std::string> rpcServer = findRpcServer();
        ASSERT_TRUE(rpcServer) << rpcServer.error().message;
        for (std::size_t i = 0; i < rpcFitEndpoints().size(); ++i) {
            auto started = RpcServerRun::start(*rpcServer, {{"LLAMAFIT_NO_POPULATE", "1"}});
            ASSERT_TRUE(started) << started.error().message;
            liveEndpoints.push_back((*started)->endpoint());
            servers.push_back(std::move(*started));
        }
    }

    // The real tool, at -lv 4 so that its log has the breakdown table and the fit's steps.
    std::vector<std::string> toolArgs = {"-m", model, "-lv", "4"};
    for (const std::string& arg : recording.args) {
        toolArgs.push_back(withEndpoints(arg, rpcFitEndpoints(), liveEndpoints));
    }
    const std::string toolErr = scratch + "/" + fitCase.name + ".tool.log";
    // Its log goes through a background thread that the tool's exit does not wait for, so the
    // failure line, or the end of the breakdown table, is sometimes lost (projectioncheck.h): ask
    // again (at most three runs) when the reason or the table's Host row is missing.
    const auto logIsWhole = [](const std::string& text, int exitCode) {
        if (exitCode == 1 && failureReason(text).empty()) {
            return false;
        }
        const Result<AllocationLog> parsed = parseAllocationLog(text);
        return parsed && !parsed->breakdownTables.empty() &&
               isWholeBreakdownTable(parsed->breakdownTables.front());
    };
    CommandRun real;
    std::string log;
    for (int attempt = 0; attempt < 3; ++attempt) {
        real = runShellCommand(commandLine(tool, toolArgs, toolErr, fitCase.rig));
        log = readText(toolErr);
        if (logIsWhole(log, real.exitCode)) {
            break;
        }
    }
    recording.exitCode = real.exitCode;
    // The tool names an RPC device by its endpoint (-ot "...=RPC0[127.0.0.1:PORT]"): recorded by
    // the endpoints of the recording. An aborted run's stdout is its backtrace, not a fit.
    recording.stdoutText = withEndpoints(withoutTrailingNewline(real.out), liveEndpoints, rpcFitEndpoints());
    if (toolAborted(recording)) {
        recording.stdoutText.clear();
    }
    recording.reason = failureReason(log);

    // The memory it measured against: each device's free MiB from its first breakdown table,
    // and (CPU only) the host total, which must be this machine's MemTotal.
    Result<AllocationLog> parsed = parseAllocationLog(log);
    ASSERT_TRUE(parsed) << parsed.error().message;
    const std::string recordDir =
        std::getenv("LLAMAFIT_RECORD_FIT_DIR") ? std::getenv("LLAMAFIT_RECORD_FIT_DIR") : "";
    if (toolAborted(recording)) {
        if (!recordDir.empty()) {
            std::ofstream(recordDir + "/" + fitCase.name + ".txt")
                << formatFitRecording(fitCase.name, recording);
        }
        GTEST_SKIP() << "llama-fit-params aborted (exit " << recording.exitCode
                     << "): its run says nothing about the fit\n"
                     << log.substr(log.size() - std::min<std::size_t>(log.size(), 2000));
    }
    ASSERT_FALSE(parsed->breakdownTables.empty()) << "no memory breakdown in the tool's log:\n" << log;
    for (const MemoryBreakdownRow& row : parsed->breakdownTables.front()) {
        if (row.freeMiB) {
            recording.devices.push_back(
                {row.name.substr(0, row.name.find(' ')), static_cast<std::uint64_t>(*row.freeMiB)});
        }
    }
    std::smatch hostLine;
    if (std::regex_search(log, hostLine, std::regex(R"(vs\. (\d+) MiB of total host memory)"))) {
        EXPECT_EQ(std::stoull(hostLine[1]), host->memTotalBytes / kMiB)
            << "llama.cpp's host total is not MemTotal";
    }
    if (!recordDir.empty()) {
        std::ofstream(recordDir + "/" + fitCase.name + ".txt") << formatFitRecording(fitCase.name, recording);
    }

    // The CLI, fed the same figures (the host total it reads itself, as llama.cpp does).
    std::vector<std::string> cliArgs = {"fit", "--as-llama-fit-params", "-m", model};
    cliArgs.insert(cliArgs.end(), recording.args.begin(), recording.args.end());
    for (std::size_t i = 0; i < recording.devices.size(); ++i) {
        const FitDeviceRecord& device = recording.devices[i];
        cliArgs.push_back("--gpu");
        if (fitCase.rig == FitRig::Rpc) {
            ASSERT_LT(i, rpcFitEndpoints().size()) << "more devices than RPC servers: " << device.name;
            cliArgs.push_back("rpc:" + rpcFitEndpoints()[i] + "=" + std::to_string(device.freeMiB));
        } else {
            // lavapipe's limits (vulkancases.h lavapipeDevice): big output matrices stay on the CPU.
            cliArgs.push_back("vulkan:" + device.name + "=" + std::to_string(device.freeMiB) +
                              ",storage-mib=128,alloc-mib=2048");
        }
    }
    const std::string cliErr = scratch + "/" + fitCase.name + ".cli.log";
    const CommandRun ours = runShellCommand(commandLine(LLAMAFIT_CLI_PATH, cliArgs, cliErr));
    const std::string oursErr = readText(cliErr);
    if (!fitCase.knownDifference.empty()) {
        EXPECT_NE(withoutTrailingNewline(ours.out) + failureReason(oursErr),
                  recording.stdoutText + recording.reason)
            << "the replica now agrees: drop the case's knownDifference";
        GTEST_SKIP() << "known difference: " << fitCase.knownDifference;
    }
    EXPECT_EQ(ours.exitCode, recording.exitCode) << oursErr;
    EXPECT_EQ(withoutTrailingNewline(ours.out), recording.stdoutText)
        << "llama-fit-params' own steps:\n"
        << log.substr(0, std::min<std::size_t>(log.size(), 6000));
    EXPECT_EQ(failureReason(oursErr), recording.reason);
}

INSTANTIATE_TEST_SUITE_P(Cases, FitParamsLive, ::testing::ValuesIn(fitCases()),
                         [](const ::testing::TestParamInfo<FitCase>& info) { return info.param.name; });
// The seeded holdout (fitholdoutcases.h): recorded with LLAMAFIT_RECORD_FIT_DIR and checked from
// its recordings on every test run; ctest leaves its live runs out (tests/integration/CMakeLists.txt).
INSTANTIATE_TEST_SUITE_P(Holdout, FitParamsLive, ::testing::ValuesIn(fitHoldoutCases()),
                         [](const ::testing::TestParamInfo<FitCase>& info) { return info.param.name; });

// llama-server itself (CPU-only build) with its fit on, as a user starts it without -c: the
// context it then creates ("llama_context: n_ctx = N", printed right after the fit) must be the
// replica's for the llama-server program (-np auto: 4 unified slots, one logits row per slot).
struct ServerFitCase {
    std::string name;
    std::string shape;
    std::vector<std::string> args;
    std::uint32_t leaveMiB = 0;
};

void PrintTo(const ServerFitCase& fitCase, std::ostream* out) {
    *out << fitCase.name;
}

class FitServerLive : public ::testing::TestWithParam<ServerFitCase> {};

TEST_P(FitServerLive, ReplicaPicksTheContextLlamaServerCreates) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const ServerFitCase& fitCase = GetParam();
    const Result<std::string> server = findLlamaServer();
    ASSERT_TRUE(server) << server.error().message;
    std::string error;
    const std::string& scratch = scratchDirectory(error);
    ASSERT_FALSE(scratch.empty()) << error;
    FitCase shapeOnly;
    shapeOnly.shape = fitCase.shape;
    const std::string model = modelPath(shapeOnly, scratch, error);
    ASSERT_FALSE(model.empty()) << error;
    Result<HostMemory> host = parseMemInfo(readText("/proc/meminfo"));
    ASSERT_TRUE(host) << host.error().message;

    std::vector<std::string> flags = fitCase.args;
    flags.push_back("-fitt");
    flags.push_back(std::to_string(host->memTotalBytes / kMiB - fitCase.leaveMiB));
    ServerRunOptions options;
    options.executable = *server;
    options.args = {"-m", model, "-lv", "4", "--no-warmup", "-t", "2"};
    options.args.insert(options.args.end(), flags.begin(), flags.end());
    options.environment = {{"LLAMAFIT_NO_POPULATE", "1"}};
    options.stopGrace = std::chrono::seconds(3);
    // The fit is over once the context is created; nothing after it is needed.
    options.stopWhen = [](std::string_view log) {
        return log.find("llama_context: n_ctx ") != std::string_view::npos;
    };
    Result<ServerRunResult> run = runLlamaServer(options);
    ASSERT_TRUE(run) << run.error().message;
    Result<AllocationLog> parsed = parseAllocationLog(run->log);
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_TRUE(parsed->context) << "no llama_context line:\n" << run->log.substr(0, 4000);

    Result<GgufFile> file = readGgufFile(model);
    ASSERT_TRUE(file) << file.error().message;
    Result<ModelInfo> info = interpretModel(*file);
    ASSERT_TRUE(info) << info.error().message;
    Result<ParsedServerArgs> args = parseServerArgs(flags);
    ASSERT_TRUE(args) << args.error().message;
    Result<FitParams> params = readFitParams(*args);
    ASSERT_TRUE(params) << params.error().message;
    FitRequest request;
    request.settings = args->settings;
    request.params = *params;
    request.hostTotalBytes = host->memTotalBytes;
    Result<FitOutcome> outcome = replicateLlamaFit(*info, request);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->status, FitStatus::Fitted)
        << "each case leaves too little room for the training context";
    EXPECT_EQ(outcome->contextTokens, parsed->context->nCtx) << run->log.substr(0, 6000);
}

INSTANTIATE_TEST_SUITE_P(Cases, FitServerLive,
                         ::testing::Values(ServerFitCase{"llama_auto_slots", "llama", {}, 5000},
                                           ServerFitCase{"llama_np2", "llama", {"-np", "2"}, 5000},
                                           ServerFitCase{"qwen3_auto_slots", "qwen3", {}, 2500},
                                           ServerFitCase{"gemma3_np1", "gemma3", {"-np", "1"}, 1150}),
                         [](const ::testing::TestParamInfo<ServerFitCase>& info) { return info.param.name; });

// `estimate --verify` with the real CPU-only llama-fit-params: llama.cpp's projection and
// LlamaFit's for the llama shape agree within 1 %; the line names the build.
TEST(EstimateVerifyLive, PrintsLlamaCppsProjectionNextToLlamaFits) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    std::string error;
    const std::string& scratch = scratchDirectory(error);
    ASSERT_FALSE(scratch.empty()) << error;
    FitCase shapeOnly;
    shapeOnly.shape = "llama";
    const std::string model = modelPath(shapeOnly, scratch, error);
    ASSERT_FALSE(model.empty()) << error;
    const std::string cliErr = scratch + "/verify.cli.log";
    const CommandRun run = runShellCommand(commandLine(
        LLAMAFIT_CLI_PATH,
        {"estimate", "-m", model, "-c", "8192", "--verify", "--llama-fit-params", toolPath(FitRig::Cpu)},
        cliErr));
    ASSERT_EQ(run.exitCode, 0) << readText(cliErr);
    std::smatch line;
    ASSERT_TRUE(std::regex_search(
        run.out, line, std::regex(R"(Host: llama\.cpp b11669 projects (\d+) MiB, LlamaFit (\d+) MiB)")))
        << run.out;
    EXPECT_NEAR(std::stod(line[2]), std::stod(line[1]), std::stod(line[1]) / 100);
    EXPECT_EQ(run.out.find("differs"), std::string::npos) << run.out;
}

} // namespace

} // namespace llamafit::test

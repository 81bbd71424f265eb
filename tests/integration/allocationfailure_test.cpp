// A real allocation failure: llama-server 0.7.0 on the sparse llama shape (2357 MiB of mapped
// weights) under an address-space rlimit set in the child (util-linux prlimit execs the server
// with RLIMIT_AS set: setrlimit in the child, no shell), with a context whose KV cache (4 GiB)
// cannot fit. The launch must be classified as an allocation failure of the KV cache, the
// failure fixes must propose a smaller context the estimate says fits, and that context must
// really load under the same limit.

#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/server/failurefixes.h"
#include "core/server/launchfailure.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/integrationcases.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit::test {
namespace {

constexpr const char* kPrlimit = "/usr/bin/prlimit";
constexpr std::uint64_t kLimitBytes = 4000ull * 1024 * 1024;
// RLIMIT_AS also counts what is not a llama.cpp buffer: libraries, thread stacks, malloc
// arenas (about 300 MiB for llama-server 0.7.0 on CPU); the budget leaves room for it.
constexpr std::uint64_t kNonBufferBytes = 512ull * 1024 * 1024;

Result<ServerRunResult> runUnderLimit(const std::string& server, const std::string& model,
                                      const std::vector<std::string>& flags) {
    ServerRunOptions options;
    options.executable = kPrlimit;
    options.args = {"--as=" + std::to_string(kLimitBytes),
                    server,
                    "-m",
                    model,
                    "-lv",
                    "4",
                    "--no-warmup",
                    "-fit",
                    "off",
                    "-t",
                    "2"};
    options.args.insert(options.args.end(), flags.begin(), flags.end());
    options.environment = {{"LLAMAFIT_NO_POPULATE", "1"}};
    options.stopGrace = std::chrono::seconds(3);
    return runLlamaServer(options);
}

TEST(RealAllocationFailureTest, KvCacheOverAddressSpaceLimitGetsAContextThatFits) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    if (!std::filesystem::exists(kPrlimit)) {
        GTEST_SKIP() << kPrlimit << " (util-linux) is needed to set RLIMIT_AS in the child";
    }
    const auto server = findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    std::string error;
    const std::string& directory = scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    IntegrationShape shape;
    shape.name = "llama";
    shape.specPath = shapesDirectory() + "/llama.json";
    shape.architecture = "llama";
    const std::string path = materializeShape(shape, directory, error);
    ASSERT_FALSE(path.empty()) << error;

    const std::vector<std::string> flags{"-c", "131072", "-np", "1"};
    const auto run = runUnderLimit(*server, path, flags);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_FALSE(run->timedOut) << run->log;

    LaunchOutcome outcome;
    outcome.log = run->log;
    outcome.exitCode = run->exitCode;
    outcome.signal = run->signal;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    ASSERT_EQ(failure.reason, LaunchFailureReason::AllocationFailed) << failure.message << "\n" << run->log;
    ASSERT_TRUE(failure.allocation);
    EXPECT_EQ(failure.allocation->phase, AllocationPhase::KvCache);
    EXPECT_EQ(failure.allocation->bufferType, "CPU");

    const auto file = readGgufModel(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    auto info = interpretModel(*file);
    ASSERT_TRUE(info.ok()) << info.error().message;
    const SizingModel model = prepareModel(std::move(*info));
    const auto args = parseServerArgs(flags);
    ASSERT_TRUE(args.ok());
    const std::uint64_t budget = kLimitBytes - kNonBufferBytes;
    const auto diagnosis = diagnoseAllocationFailure(model, args->settings, {}, *failure.allocation, budget);
    ASSERT_TRUE(diagnosis.ok()) << diagnosis.error().message;
    EXPECT_EQ(diagnosis->component, Component::Kv) << diagnosis->device;
    EXPECT_TRUE(diagnosis->sizeMatched) << "failed " << failure.allocation->failedBytes.value_or(0)
                                        << " bytes, predicted KV " << diagnosis->predictedBufferBytes;
    ASSERT_FALSE(diagnosis->fixes.empty()) << diagnosis->device;
    const FailureFix& fix = diagnosis->fixes[0];
    ASSERT_EQ(fix.kind, FixKind::Context) << fixKindName(fix.kind);
    ASSERT_TRUE(fix.settings.contextTokens);
    EXPECT_LT(*fix.settings.contextTokens, 131072u);
    EXPECT_LE(fix.deviceBytes, budget);
    std::cout << "[ fix      ] " << diagnosis->device << ": context " << fix.from << " -> " << fix.to
              << std::endl;

    // The proposed context really loads under the same limit.
    std::vector<std::string> fixed = flags;
    fixed.insert(fixed.end(), fix.addedArgs.begin(), fix.addedArgs.end()); // a later -c wins
    const auto rerun = runUnderLimit(*server, path, fixed);
    ASSERT_TRUE(rerun.ok()) << rerun.error().message;
    const auto log = parseAllocationLog(rerun->log);
    ASSERT_TRUE(log.ok()) << log.error().message;
    EXPECT_TRUE(log->reserveComplete) << fix.to << " tokens still fail:\n" << rerun->log;
    ASSERT_TRUE(log->context);
    EXPECT_EQ(log->context->nCtx, *fix.settings.contextTokens);
}

} // namespace
} // namespace llamafit::test

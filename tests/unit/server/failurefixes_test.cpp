// Failure fixes on the real allocation failures of tests/data/server (the tiny model with
// `-c 2000000 -np 1 -lv 4` under `ulimit -v`: the KV cache, then the compute buffer, did not
// fit), and on a GPU failure built from llama.cpp's CUDA message format.

#include "core/server/failurefixes.h"

#include "core/common/units.h"
#include "core/server/launchfailure.h"
#include "tests/unit/server/serverdata.h"
#include "tests/unit/server/shapeestimate.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

const std::vector<std::string> kOomFlags{"-c", "2000000", "-np", "1"};

AllocationFailure failureIn(const std::string& capture) {
    const std::string log = testdata::readServerCapture(capture);
    EXPECT_FALSE(log.empty()) << capture;
    LaunchOutcome outcome;
    outcome.log = log;
    outcome.exitCode = 1;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    EXPECT_EQ(failure.reason, LaunchFailureReason::AllocationFailed);
    return failure.allocation.value_or(AllocationFailure{});
}

// Every fix must really fit: re-estimate its settings independently of the diagnosis.
void expectFixesFit(const testdata::ShapeRun& run, const FailureDiagnosis& diagnosis) {
    for (const FailureFix& fix : diagnosis.fixes) {
        SCOPED_TRACE(std::string(fixKindName(fix.kind)));
        // The change is one step down: fewer tokens, slots or layers, or other K/V types.
        EXPECT_TRUE(fix.kind == FixKind::CacheTypes ? (fix.toK != fix.fromK || fix.toV != fix.fromV)
                                                    : fix.to < fix.from);
        EXPECT_FALSE(fix.addedArgs.empty());
        EXPECT_NE(fix.settings, run.args.settings);
        const auto estimate = estimateMemory(run.model, fix.settings, run.args.gpus);
        ASSERT_TRUE(estimate.ok());
        EXPECT_EQ(estimate->totals.totalBytes(), fix.totalBytes);
        EXPECT_LE(fix.deviceBytes, diagnosis.budgetBytes);
        // The args spell the new settings: applying them to the old flags gives fix.settings.
        std::vector<std::string> flags = run.args.gpus.empty() ? kOomFlags : std::vector<std::string>{};
        if (run.args.gpus.empty()) {
            flags.insert(flags.end(), fix.addedArgs.begin(), fix.addedArgs.end());
            const auto parsed = parseServerArgs(flags);
            ASSERT_TRUE(parsed.ok());
            EXPECT_EQ(parsed->settings, fix.settings);
        }
    }
}

TEST(FailureFixesTest, KvCacheFailureUnderRlimitProposesASmallerContext) {
    const AllocationFailure failure = failureIn("fail-oom-kv.log");
    ASSERT_EQ(failure.phase, AllocationPhase::KvCache);
    const auto run = testdata::shapeRun("tiny", kOomFlags);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const std::uint64_t budget = 256 * kMiB;
    const auto diagnosis = diagnoseAllocationFailure(run->model, run->args.settings, {}, failure, budget);
    ASSERT_TRUE(diagnosis.ok()) << diagnosis.error().message;
    EXPECT_EQ(diagnosis->device, "CPU");
    ASSERT_TRUE(diagnosis->component);
    EXPECT_EQ(*diagnosis->component, Component::Kv);
    // The failed 512032768 bytes are exactly the predicted KV buffer (2 layers x 2000128 cells x 2 x 32 x
    // f16).
    EXPECT_TRUE(diagnosis->sizeMatched);
    EXPECT_EQ(diagnosis->predictedBufferBytes, *failure.failedBytes);
    EXPECT_GT(diagnosis->predictedDeviceBytes, budget);
    ASSERT_FALSE(diagnosis->fixes.empty()) << diagnosis->device;
    const FailureFix& first = diagnosis->fixes[0];
    EXPECT_EQ(first.kind, FixKind::Context);
    ASSERT_TRUE(first.settings.contextTokens);
    EXPECT_LT(*first.settings.contextTokens, 2000000u);
    EXPECT_EQ(first.from, 2000000u);
    EXPECT_EQ(first.to, *first.settings.contextTokens);
    EXPECT_EQ(first.removedArgs, (std::vector<std::string>{"-c", "2000000"}));
    EXPECT_EQ(diagnosis->component, Component::Kv);
    EXPECT_EQ(diagnosis->failedBytes, failure.failedBytes);
    expectFixesFit(*run, *diagnosis);
}

TEST(FailureFixesTest, ComputeFailureUnderRlimitNamesTheComputeBuffer) {
    const std::string log = testdata::readServerCapture("fail-oom-compute.log");
    const AllocationFailure failure = failureIn("fail-oom-compute.log");
    ASSERT_EQ(failure.phase, AllocationPhase::Compute);
    const auto run = testdata::shapeRun("tiny", kOomFlags);
    ASSERT_TRUE(run.ok()) << run.error().message;
    // The log proves the weights, output and the 488.31 MiB KV cache were allocated.
    const std::uint64_t proven = lowerBoundFromLog(log, failure);
    EXPECT_NEAR(toMiB(proven), 0.42 + 0.00 + 488.31, 0.01);
    const std::uint64_t budget = proven + *failure.failedBytes / 2;
    const auto diagnosis = diagnoseAllocationFailure(run->model, run->args.settings, {}, failure, budget);
    ASSERT_TRUE(diagnosis.ok()) << diagnosis.error().message;
    ASSERT_TRUE(diagnosis->component);
    EXPECT_EQ(*diagnosis->component, Component::Compute);
    EXPECT_GT(diagnosis->predictedBufferBytes, 0u);
    ASSERT_FALSE(diagnosis->fixes.empty()) << diagnosis->device;
    bool context = false;
    for (const FailureFix& fix : diagnosis->fixes) {
        context = context || fix.kind == FixKind::Context;
    }
    EXPECT_TRUE(context);
    expectFixesFit(*run, *diagnosis);
}

TEST(FailureFixesTest, NoBudgetIsAnError) {
    const auto run = testdata::shapeRun("tiny", kOomFlags);
    ASSERT_TRUE(run.ok());
    const auto diagnosis =
        diagnoseAllocationFailure(run->model, run->args.settings, {}, failureIn("fail-oom-kv.log"), 0);
    ASSERT_FALSE(diagnosis.ok());
    EXPECT_EQ(diagnosis.error().code, "server.zero-budget");
}

// A CUDA failure of the KV cache (ggml-cuda's "allocating %.2f MiB on device %d: cudaMalloc
// failed") on a realistic shape: context, cache types and GPU layers are offered, each fitting.
TEST(FailureFixesTest, GpuKvFailureOffersContextCacheTypesAndLayers) {
    const auto run = testdata::shapeRun("llama", {"-c", "131072", "-np", "1", "--gpu", "cuda=8192"});
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_EQ(run->args.gpus.size(), 1u);
    const auto estimate = estimateMemory(run->model, run->args.settings, run->args.gpus);
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    ASSERT_EQ(estimate->devices.size(), 2u);
    const std::uint64_t kv = estimate->devices[1].bytes.kvBytes;
    ASSERT_GT(kv, 0u);
    const std::string log = "llama_kv_cache: allocating " + std::to_string(toMiB(kv)) +
                            " MiB on device 0: cudaMalloc failed: out of memory\n"
                            "llama_init_from_model: failed to initialize the context: failed to allocate "
                            "buffer for kv cache\n";
    const auto failure = findAllocationFailure(log, false);
    ASSERT_TRUE(failure);
    const std::uint64_t budget = estimate->devices[1].bytes.totalBytes() - kv / 2;
    const auto diagnosis =
        diagnoseAllocationFailure(run->model, run->args.settings, run->args.gpus, *failure, budget);
    ASSERT_TRUE(diagnosis.ok()) << diagnosis.error().message;
    EXPECT_EQ(diagnosis->device, estimate->devices[1].name);
    EXPECT_EQ(diagnosis->component, Component::Kv);
    EXPECT_TRUE(diagnosis->sizeMatched);
    std::vector<std::string> ids;
    for (const FailureFix& fix : diagnosis->fixes) {
        ids.emplace_back(fixKindName(fix.kind));
    }
    ASSERT_GE(ids.size(), 3u) << diagnosis->device;
    EXPECT_EQ(ids[0], "context");
    EXPECT_NE(std::find(ids.begin(), ids.end(), "cache-types"), ids.end());
    EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu-layers"), ids.end());
    expectFixesFit(*run, *diagnosis);
    for (const FailureFix& fix : diagnosis->fixes) {
        if (fix.kind == FixKind::CacheTypes) {
            EXPECT_EQ(fix.settings.contextTokens, 131072u); // same context, cheaper cache
            EXPECT_TRUE(fix.toK != fix.fromK || fix.toV != fix.fromV);
        }
    }
}

} // namespace
} // namespace llamafit

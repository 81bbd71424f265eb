// Pipeline parallelism's copies (core/sizing/pipelinecopies.h): when llama.cpp turns it on, and
// what the extra copies of the split and graph inputs add per device, in hidden-state rows.

#include "core/common/units.h"
#include "core/sizing/estimator.h"
#include "core/sizing/pipelinecopies.h"
#include "core/sizing/rpcdevices.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ServerSettings twoServers() {
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = 1;
    settings.gpuLayers = GpuLayers::all();
    settings.rpcServers = {"127.0.0.1:50052", "127.0.0.1:50053"};
    return settings;
}

std::vector<GpuDevice> servers() {
    return {rpcDevice("127.0.0.1:50052", 24 * kGiB), rpcDevice("127.0.0.1:50053", 24 * kGiB)};
}

LayerPlacement halves(std::size_t blocks) {
    LayerPlacement layers;
    for (std::size_t il = 0; il < blocks; ++il) {
        layers.layerDevice.push_back(il < blocks / 2 ? 0 : 1);
    }
    layers.outputDevice = 1;
    return layers;
}

// src/llama-context.cpp: several devices, everything offloaded, KV offloaded, no overrides.
TEST(PipelineCopies, OnlyWithEverythingOffloadedToSeveralDevicesWithoutOverridesOrNkvo) {
    const ServerSettings settings = twoServers();
    const LayerPlacement layers = halves(16);
    EXPECT_EQ(schedulerCopies(settings, servers(), layers), 4u);
    EXPECT_EQ(schedulerCopies(settings, {servers().front()}, layers), 1u);

    LayerPlacement partial = layers;
    partial.layerDevice.front() = kHostDevice;
    EXPECT_EQ(schedulerCopies(settings, servers(), partial), 1u);
    LayerPlacement hostOutput = layers;
    hostOutput.outputDevice = kHostDevice;
    EXPECT_EQ(schedulerCopies(settings, servers(), hostOutput), 1u);

    ServerSettings nkvo = settings;
    nkvo.kvOffload = false;
    EXPECT_EQ(schedulerCopies(nkvo, servers(), layers), 1u);
    ServerSettings overrides = settings;
    overrides.cpuMoe = true;
    EXPECT_EQ(schedulerCopies(overrides, servers(), layers), 1u);
}

// The first device receives four embedding rows a copy, the next one hidden state a copy, the host
// keeps two rows a copy; nothing without pipeline parallelism.
TEST(PipelineCopies, ExtraCopiesOfTheRowsCrossingEachSplit) {
    const ModelInfo model = test::llama1B();
    const ServerSettings settings = twoServers();
    const ResolvedContext context = resolveContext(model, settings).value();
    const KvPlan kv = sizeKvCaches(model, settings, context);
    const LayerPlacement layers = halves(model.layers.size());
    const std::uint64_t row = std::uint64_t{context.nUbatch} * model.embeddingLength * 4;
    const RecurrentBlockShape none;

    const PipelineCopyBytes four = pipelineCopyBytes(model, none, context, kv, layers, 2, 4);
    ASSERT_EQ(four.deviceBytes.size(), 2u);
    EXPECT_EQ(four.deviceBytes[0], 3 * 4 * row);
    EXPECT_EQ(four.deviceBytes[1], 3 * row);
    EXPECT_EQ(four.hostBytes, 3 * 2 * row);

    const PipelineCopyBytes one = pipelineCopyBytes(model, none, context, kv, layers, 2, 1);
    EXPECT_EQ(one.deviceBytes, (std::vector<std::uint64_t>{0, 0}));
    EXPECT_EQ(one.hostBytes, 0u);
}

// Without flash attention each cache's v_idxs input (n_embd_v_gqa x n_ubatch int64) is copied too.
TEST(PipelineCopies, ValueRowIndicesWithoutFlashAttention) {
    const ModelInfo model = test::llama1B();
    ServerSettings settings = twoServers();
    settings.flashAttention = FlashAttention::Off;
    const ResolvedContext context = resolveContext(model, settings).value();
    const KvPlan kv = sizeKvCaches(model, settings, context);
    const std::uint64_t row = std::uint64_t{context.nUbatch} * model.embeddingLength * 4;
    const std::uint64_t valueIndices = std::uint64_t{context.nUbatch} * model.layers.front().headCountKv *
                                       model.layers.front().valueHeadDim * 8;

    const PipelineCopyBytes four =
        pipelineCopyBytes(model, RecurrentBlockShape{}, context, kv, halves(model.layers.size()), 2, 4);
    EXPECT_EQ(four.deviceBytes[1], 3 * (row + valueIndices));
    EXPECT_EQ(four.hostBytes, 3 * (2 * row + valueIndices));
}

// A GPU with the output layer only, fed without op offload, gets the output rows, not the batch's.
TEST(PipelineCopies, OutputSplitHoldsTheOutputRowsAndTheLogits) {
    const ModelInfo model = test::llama1B();
    const ServerSettings settings = twoServers();
    const ResolvedContext context = resolveContext(model, settings).value();
    const std::uint64_t outputs = context.nOutputs;
    EXPECT_EQ(outputSplitComputeBytes(model, context, 1),
              2 * outputs * model.embeddingLength * 4 + std::uint64_t{model.vocabularySize} * outputs * 4);
}

// A device fed without op offload: no masks without its own attention block, the hidden state of
// host blocks instead of the embedding rows, and -nkvo's first device keeps its embedding row.
TEST(PipelineCopies, SplitInputsOfADeviceWithoutOpOffload) {
    const ModelInfo model = test::llama1B();
    ServerSettings settings = twoServers();
    const ResolvedContext context = resolveContext(model, settings).value();
    const std::int64_t row = std::int64_t{context.nUbatch} * model.embeddingLength * 4;
    ComputeBreakdown block;
    block.maskBytes = 8 * kMiB;

    LayerPlacement layers = halves(model.layers.size());
    EXPECT_EQ(splitInputAdjustmentBytes(block, model, settings, context, layers, 1), 0);
    // Device 2 holds no block, hence no attention block: its masks never cross.
    EXPECT_EQ(splitInputAdjustmentBytes(block, model, settings, context, layers, 2),
              -static_cast<std::int64_t>(block.maskBytes));
    layers.layerDevice.front() = kHostDevice;
    EXPECT_EQ(splitInputAdjustmentBytes(block, model, settings, context, layers, 1), -2 * row);

    settings.kvOffload = false;
    const LayerPlacement all = halves(model.layers.size());
    EXPECT_EQ(splitInputAdjustmentBytes(block, model, settings, context, all, 0), row);
    EXPECT_EQ(splitInputAdjustmentBytes(block, model, settings, context, all, 1), 0);
}

} // namespace
} // namespace llamafit

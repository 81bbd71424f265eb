// estimateMemory(): devices, totals, notes and overheads put together.
#include "core/sizing/estimator.h"
#include "tests/unit/sizing/estimatequery.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

using test::mib;

bool hasNote(const MemoryEstimate& e, const std::string& fragment) {
    return std::any_of(e.notes.begin(), e.notes.end(),
                       [&](const std::string& note) { return note.find(fragment) != std::string::npos; });
}

TEST(Estimator, CpuOnlyRunHasOneHostDeviceWhoseTotalsAreTheBuffers) {
    ServerSettings s;
    s.contextTokens = 4096;
    s.parallelSlots = 1;
    auto e = estimateMemory(test::llama1B(), s);
    ASSERT_TRUE(e.ok());
    ASSERT_EQ(e->devices.size(), 1u);
    EXPECT_EQ(e->devices[0].name, "CPU");
    EXPECT_TRUE(e->devices[0].host);
    std::uint64_t buffers = 0;
    for (const auto& buffer : e->devices[0].buffers) {
        buffers += buffer.bytes;
        EXPECT_EQ(buffer.rule.id == SizeRuleId::KvCache, buffer.component == Component::Kv)
            << buffer.bufferType;
    }
    EXPECT_EQ(buffers, e->totals.totalBytes());
    EXPECT_EQ(e->totals, e->devices[0].bytes);
    EXPECT_EQ(e->totals.overheadBytes, 0u);
    // The fit line of row 1: "projected to use 2557 MiB of host memory" = model + KV + compute.
    EXPECT_NEAR(mib(e->totals.modelBytes + e->totals.kvBytes + e->totals.computeBytes), 2557.0, 1.0);
}

// llama-fit-params, llama-cli and servers before llama.cpp PR #23861 reserve logits for every ubatch
// token in the worst-case graph; the output buffer allocated at load stays one row per slot.
TEST(Estimator, PerBatchOutputsReserveLogitsPerTokenInTheGraphOnly) {
    ServerSettings s;
    s.contextTokens = 4096;
    s.parallelSlots = 1;
    const auto server = estimateMemory(test::llama1B(), s);
    s.outputReserve = OutputReserve::PerBatch;
    const auto older = estimateMemory(test::llama1B(), s);
    ASSERT_TRUE(server.ok() && older.ok());
    EXPECT_EQ(older->context.nOutputs, 2048u); // n_outputs_max = n_batch; the graph holds n_ubatch rows
    EXPECT_EQ(older->totals.outputBytes, server->totals.outputBytes);
    // 128256 logits x 511 more rows, f32: at least that much more compute.
    EXPECT_GE(older->totals.computeBytes, server->totals.computeBytes + std::uint64_t{128256} * 511 * 4 / 2);
}

TEST(Estimator, HostFirstThenGpusAndTotalsAreTheSum) {
    ServerSettings s;
    s.contextTokens = 8192;
    const std::vector<GpuDevice> gpus = {{"CUDA0", 8 * kGiB, Backend::Cuda, false, std::nullopt},
                                         {"Vulkan0", 8 * kGiB, Backend::Vulkan, false, 300 * kMiB}};
    auto e = estimateMemory(test::llama3_8B(), s, gpus);
    ASSERT_TRUE(e.ok());
    ASSERT_EQ(e->devices.size(), 3u);
    EXPECT_EQ(e->devices[0].name, "CPU");
    EXPECT_EQ(e->devices[1].name, "CUDA0");
    EXPECT_EQ(e->devices[2].name, "Vulkan0");
    ComponentBytes sum;
    for (const auto& device : e->devices) {
        sum += device.bytes;
    }
    EXPECT_EQ(sum, e->totals);
    EXPECT_EQ(e->devices[1].bytes.overheadBytes, 400 * kMiB); // CUDA default
    EXPECT_EQ(e->devices[2].bytes.overheadBytes, 300 * kMiB); // GpuDevice::overheadBytes wins
    EXPECT_EQ(e->devices[0].bytes.overheadBytes, 0u);
    // Every block offloaded: the host keeps token_embd, the output buffer (pinned) and a small compute
    // buffer.
    EXPECT_EQ(e->devices[0].bytes.kvBytes, 0u);
    EXPECT_GT(test::bufferBytes(e.value(), "CPU", "CUDA_Host", Component::Compute), 0u);
    EXPECT_EQ(test::bufferBytes(e.value(), "CPU", "Vulkan_Host", Component::Output), e->totals.outputBytes);
    EXPECT_EQ(e->gpuLayers, 33u);
}

TEST(Estimator, NoKvOffloadKeepsTheCacheOnTheHost) {
    ServerSettings s;
    s.contextTokens = 4096;
    s.parallelSlots = 1;
    s.kvOffload = false;
    auto e = estimateMemory(test::llama1B(), s, {{"CUDA0", 8 * kGiB, Backend::Cuda, false, std::nullopt}});
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->devices[0].bytes.kvBytes, e->totals.kvBytes);
    EXPECT_EQ(e->devices[1].bytes.kvBytes, 0u);
}

TEST(Estimator, NotesSayWhichDefaultsWereApplied) {
    ServerSettings s; // -c, -np, -fa, -ngl all at their defaults
    auto e = estimateMemory(test::qwen35_35B_A3B(), s,
                            {{"Vulkan0", 32 * kGiB, Backend::Vulkan, true, std::nullopt}});
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->context.nCtx, 262144u);
    EXPECT_TRUE(hasNote(e.value(), "--fit"));
    EXPECT_TRUE(hasNote(e.value(), "4 slots"));
    EXPECT_TRUE(hasNote(e.value(), "flash attention enabled"));
    EXPECT_TRUE(hasNote(e.value(), "-ngl auto"));
    s.contextTokens = 4096;
    s.parallelSlots = 1;
    s.flashAttention = FlashAttention::On;
    s.gpuLayers = GpuLayers::count(10);
    auto quiet = estimateMemory(test::qwen35_35B_A3B(), s,
                                {{"Vulkan0", 32 * kGiB, Backend::Vulkan, true, std::nullopt}});
    ASSERT_TRUE(quiet.ok());
    EXPECT_TRUE(quiet->notes.empty());
}

TEST(Estimator, SeedArticleQwen35OnAnApuSharesKvAndRsWithTheGpu) {
    // Seed 000: Qwen3.5-35B-A3B, Vulkan iGPU, -c 65536 q8_0, 4 slots: KV 680 + RS 251.25 MiB on the GPU.
    ServerSettings s;
    s.contextTokens = 65536;
    s.cacheTypeK = GgmlType::Q8_0;
    s.cacheTypeV = GgmlType::Q8_0;
    auto e = estimateMemory(test::qwen35_35B_A3B(), s,
                            {{"Vulkan0", 32 * kGiB, Backend::Vulkan, true, std::nullopt}});
    ASSERT_TRUE(e.ok());
    EXPECT_NEAR(mib(e->devices[1].bytes.kvBytes), 680.0, test::kLogRoundingMiB);
    EXPECT_NEAR(mib(e->devices[1].bytes.rsBytes), 251.25, test::kLogRoundingMiB);
    // mmap is off on a Vulkan iGPU, so the host's token_embd is a real Vulkan_Host copy.
    EXPECT_GT(test::bufferBytes(e.value(), "CPU", "Vulkan_Host", Component::Model), 0u);
}

} // namespace
} // namespace llamafit

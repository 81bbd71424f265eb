// Qwen2 and Qwen3 split over two RPC servers with pipeline parallelism
// (core/sizing/attentionsplit.h), against the servers' plans in llama-server 0.7.0
// (tests/data/recorded/rpc-b11669, tests/data/shapes/qwen2.json and qwen3.json: 24 and 28 blocks;
// scripts/alloc-plan/run-case.sh; the dumped graphs re-planned by ggml-alloc, in bytes).
#include "core/sizing/attentionsplit.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace llamafit {
namespace {

struct Run {
    std::uint32_t context = 4096;
    std::optional<std::uint32_t> slots = 1; // nullopt: -np unset
    bool flashAttention = true;
    GgmlType cache = GgmlType::F16;
};

std::optional<AttentionSplitShape> shapeOf(const std::string& file, const Run& run) {
    const ModelInfo model = test::interpretedShape(file);
    ServerSettings settings;
    settings.contextTokens = run.context;
    settings.parallelSlots = run.slots;
    settings.cacheTypeK = run.cache;
    settings.cacheTypeV = run.cache;
    const ResolvedContext context = resolveContext(model, settings).value();
    return attentionSplitShape(model, sizeKvCaches(model, settings, context), settings, run.flashAttention);
}

// Two RPC servers with pipeline parallelism (4 copies of each input).
AttentionSplit first(std::uint32_t end, SplitStart next = SplitStart::AfterDevice) {
    return {0, end, SplitStart::GraphStart, false, 4, next == SplitStart::NormHandedOver};
}
AttentionSplit last(std::uint32_t begin, std::uint32_t end, SplitStart start = SplitStart::AfterDevice) {
    return {begin, end, start, true, 4, false};
}
const AttentionSplit kFirstOfTwo = first(13);     // RPC0: qwen2's blocks 0-12
const AttentionSplit kSecondOfTwo = last(13, 24); // RPC1: blocks 13-23 and the output

TEST(AttentionSplit, Qwen2OverTwoServers) {
    // qwen2_rpc2_c4096_np1: "compute buffer size = 72.55 MiB" and "56.79 MiB".
    const auto shape = shapeOf("qwen2.json", {});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kFirstOfTwo, 512, 1), 76079104u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kSecondOfTwo, 512, 1), 59547776u);
}

TEST(AttentionSplit, AQuantizedCacheMovesTheFirstServersPeakToBlockZero) {
    // qwen2_rpc2_c4096_np1_q8_0: the rotations fill block 0's holes differently, "70.93 MiB" on
    // RPC0 where the f16 cache's block 1 peaks at 72.55; "55.16 MiB" on RPC1.
    const auto shape = shapeOf("qwen2.json", {.cache = GgmlType::Q8_0});
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->rotatedKeys && shape->rotatedValues);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kFirstOfTwo, 512, 1), 74375168u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kSecondOfTwo, 512, 1), 57843840u);
}

TEST(AttentionSplit, WithoutFlashAttentionEachStreamHasItsKq) {
    // qwen2_rpc2_c8192_np4_faoff: four streams of 2048 cells, KQ [2048, 128, 14, 4] f32 and an f32
    // mask, V indices one per value: "103.79 MiB" and "88.02 MiB".
    const auto shape = shapeOf("qwen2.json", {.context = 8192, .slots = 4, .flashAttention = false});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->streams, 4u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kFirstOfTwo, 512, 4), 108830720u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kSecondOfTwo, 512, 4), 92299392u);
}

TEST(AttentionSplit, UnifiedCacheOfFourSlots) {
    // qwen2_rpc2_c8192_npauto: one stream of 8192 cells, four output rows: "88.55" and "72.79 MiB".
    const auto shape = shapeOf("qwen2.json", {.context = 8192, .slots = std::nullopt});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kFirstOfTwo, 512, 4), 92856320u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kSecondOfTwo, 512, 4), 76324992u);
}

TEST(AttentionSplit, LargerUbatch) {
    // qwen2_rpc2_c4096_np1_ub1024: "145.11 MiB" and "113.58 MiB".
    const auto shape = shapeOf("qwen2.json", {});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kFirstOfTwo, 1024, 1), 152158208u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, kSecondOfTwo, 1024, 1), 119095424u);
}

TEST(AttentionSplit, OneServerHoldingEveryBlockAndTheOutput) {
    // qwen2_rpc2_c4096_np1_ts0_1: -ts 0,1 puts everything on RPC1, still with four copies of each
    // input (two devices): "72.55 MiB" (76079232 B).
    const auto shape = shapeOf("qwen2.json", {});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, {0, 24, SplitStart::GraphStart, true, 4}, 512, 1), 76079232u);
}

TEST(AttentionSplit, OneCopyOfEachInputDiesAfterItsLastReader) {
    // qwen2_rpc1_c4096_np1: one RPC server, no pipeline: "39.51 MiB" (41433120 B); the mask and the
    // embeddings are freed after block 0 reads them.
    const auto shape = shapeOf("qwen2.json", {});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, {0, 24, SplitStart::GraphStart, true, 1}, 512, 1), 41433120u);
}

TEST(AttentionSplit, FitsMeasurementsHandTheNormOver) {
    // llama-fit-params over two RPC servers measures 512 logits rows with unpinned norms: at its first
    // measurement (-c 32768, 13 + 11 blocks) "compute 184" and "440" MiB, RPC1 receiving norm-13 and
    // l_out-12; at its last (-c 5376, -ts 21,4) "77" and "333".
    const AttentionSplit handing = first(13, SplitStart::NormHandedOver);
    const AttentionSplit handed = last(13, 24, SplitStart::NormHandedOver);
    const auto full = shapeOf("qwen2.json", {.context = 32768});
    ASSERT_TRUE(full.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*full, handing, 512, 512), 193519616u);
    EXPECT_EQ(attentionSplitDeviceBytes(*full, handed, 512, 512), 461946880u);
    const auto fitted = shapeOf("qwen2.json", {.context = 5376});
    ASSERT_TRUE(fitted.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*fitted, first(21, SplitStart::NormHandedOver), 512, 512), 81321984u);
    EXPECT_EQ(attentionSplitDeviceBytes(*fitted, last(21, 24, SplitStart::NormHandedOver), 512, 512),
              349749248u);
    // Pinned, the server's own graph (llama-perplexity, 512 rows, -c 4096): "321.55 MiB".
    const auto served = shapeOf("qwen2.json", {});
    ASSERT_TRUE(served.has_value());
    EXPECT_NEAR(attentionSplitDeviceBytes(*served, kSecondOfTwo, 512, 512) / 1048576.0, 321.55, 0.005);
}

TEST(AttentionSplit, Qwen3NormsItsHeads) {
    // qwen3_rpc2_c4096_np1 (28 blocks, 15 on RPC0): "66.05 MiB" and "48.04 MiB".
    const auto shape = shapeOf("qwen3.json", {});
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->normedHeads);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, first(15), 512, 1), 69263360u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, last(15, 28), 512, 1), 50372736u);
}

TEST(AttentionSplit, Gemma3ReadsTwoCachesAndNormsAfterEachHalfOfTheBlock) {
    // gemma3 (26 blocks, 14 on RPC0; five sliding-window layers to one global): "96.34 MiB" and
    // "76.07 MiB" at -c 4096 -np 1; without flash attention over four streams, "110.31" and "90.04";
    // one unified cache of four slots, "118.34" and "98.07".
    const auto shape = shapeOf("gemma3.json", {});
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->gemma && shape->normedHeads);
    EXPECT_EQ(shape->cells.size(), 2u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, first(14), 512, 1), 101023744u);
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, last(14, 26), 512, 1), 79765632u);
    const auto streams = shapeOf("gemma3.json", {.context = 8192, .slots = 4, .flashAttention = false});
    ASSERT_TRUE(streams.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*streams, first(14), 512, 4), 115671040u);
    EXPECT_EQ(attentionSplitDeviceBytes(*streams, last(14, 26), 512, 4), 94412928u);
    const auto unified = shapeOf("gemma3.json", {.context = 8192, .slots = std::nullopt});
    ASSERT_TRUE(unified.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*unified, first(14), 512, 4), 124092416u);
    EXPECT_EQ(attentionSplitDeviceBytes(*unified, last(14, 26), 512, 4), 102834304u);
}

TEST(AttentionSplit, AfterHostBlocksTheDeviceRunsTheirLastAdd) {
    // llama-fit-params for gemma3 over two RPC servers, -c 32768: blocks 0-10 on the host, 11-25 and
    // the output on RPC1, which receives the last host block's post-FFN norm and its residual
    // (one copy each) and reads the full cache first (block 11 is global): "compute 514" MiB.
    const auto shape = shapeOf("gemma3.json", {.context = 32768});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*shape, {11, 26, SplitStart::AfterHost, true, 1}, 512, 512),
              539230208u);
    // qwen2_rpc2_c4096_np1_ngl10: blocks 0-14 on the host, 15-19 on RPC0, 20-23 and the output on
    // RPC1; with host blocks no norm is pinned, so RPC0 runs block 20's: "36.01 MiB" on each.
    const auto qwen2 = shapeOf("qwen2.json", {});
    ASSERT_TRUE(qwen2.has_value());
    EXPECT_EQ(attentionSplitDeviceBytes(*qwen2, {15, 20, SplitStart::AfterHost, false, 1, true}, 512, 1),
              37758976u);
    EXPECT_EQ(attentionSplitDeviceBytes(*qwen2, {20, 24, SplitStart::NormHandedOver, true, 1}, 512, 1),
              37759008u);
}

TEST(AttentionSplit, OnlyDenseLlamaQwen2Qwen3AndGemma3) {
    ServerSettings settings;
    settings.contextTokens = 4096;
    for (const char* file : {"llama.json", "qwen3moe.json", "cohere2.json"}) {
        const ModelInfo model = test::interpretedShape(file);
        const ResolvedContext context = resolveContext(model, settings).value();
        const bool replayed =
            attentionSplitShape(model, sizeKvCaches(model, settings, context), settings, true).has_value();
        EXPECT_EQ(replayed, std::string(file) == "llama.json") << file; // experts, or another graph
    }
    EXPECT_EQ(attentionSplitDeviceBytes(AttentionSplitShape{}, {}, 512, 1), 0u);
}

} // namespace
} // namespace llamafit

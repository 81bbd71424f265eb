// Sliding-window layer patterns, windows and SWA head dims per architecture
// (llama.cpp src/models/<arch>.cpp, llama_hparams::set_swa_pattern).
#include "core/common/units.h"
#include "core/model/swapattern.h"
#include "tests/unit/model/modeltestshapes.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

using test::GgufBuilder;
using test::layersWhere;
using test::range;
using test::transformer;

bool isSwa(const LayerInfo& layer) {
    return layer.attention == AttentionKind::SlidingWindow;
}
bool isFull(const LayerInfo& layer) {
    return layer.attention == AttentionKind::Full;
}

// Gemma-3-1B (§7 row 17): 26 layers, n_embd 1152, 4 heads, 1 KV head x 256, n_swa 512.
GgufBuilder gemma3_1b() {
    auto b = transformer({"gemma3", 26, 1152, 4, 1, 6912, 32768});
    b.setUint32(b.key("attention.key_length"), 256).setUint32(b.key("attention.value_length"), 256);
    b.setUint32(b.key("attention.sliding_window"), 512);
    return b;
}

TEST(SwaPattern, Gemma3OneBHasFourDenseAndTwentyTwoSlidingLayers) {
    auto b = gemma3_1b();
    b.setUint32(b.key("attention.sliding_window_pattern"), 6);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->slidingWindow, 512u);
    EXPECT_EQ(layersWhere(*info, isFull), (std::vector<std::uint32_t>{5, 11, 17, 23}));
    EXPECT_EQ(layersWhere(*info, isSwa).size(), 22u);
    EXPECT_TRUE(info->hasSlidingWindowLayers());
    // §7 row 17: the non-SWA cache at 8192 cells is 32.00 MiB (4 layers x 1 x 256 x (K+V) x f16).
    std::uint64_t denseBytesPerToken = 0;
    for (const auto l : layersWhere(*info, isFull)) {
        const auto& layer = info->layers[l];
        denseBytesPerToken += std::uint64_t{layer.headCountKv} * (layer.keyHeadDim + layer.valueHeadDim) * 2;
    }
    EXPECT_EQ(denseBytesPerToken * 8192, 32 * kMiB);
}

TEST(SwaPattern, Gemma3DefaultPeriodIsSix) {
    const auto info = interpretModel(gemma3_1b().build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isFull), (std::vector<std::uint32_t>{5, 11, 17, 23}));
}

TEST(SwaPattern, Gemma3WithoutSlidingWindowKeyHasNoSwa) {
    auto b = transformer({"gemma3", 26, 1152, 4, 1, 6912});
    b.setUint32(b.key("attention.key_length"), 256).setUint32(b.key("attention.value_length"), 256);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->slidingWindow, 0u);
    EXPECT_EQ(layersWhere(*info, isFull).size(), 26u);
    EXPECT_FALSE(info->hasSlidingWindowLayers());
}

TEST(SwaPattern, Gemma3IgnoresAnArrayPatternLikeLlamaCppAndWarns) {
    auto b = gemma3_1b();
    std::vector<bool> everyOther;
    for (int l = 0; l < 26; ++l) {
        everyOther.push_back(l % 2 == 0);
    }
    b.setBoolArray(b.key("attention.sliding_window_pattern"), everyOther);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isFull), (std::vector<std::uint32_t>{5, 11, 17, 23}));
    EXPECT_EQ(std::count_if(info->warnings.begin(), info->warnings.end(),
                            [](const auto& w) {
                                return w.find("sliding_window_pattern is an array") != std::string::npos;
                            }),
              1);
}

TEST(SwaPattern, Gemma2AlternatesWithADefaultWindowOf4096) {
    // gemma-2-2b: 26 layers, 8 heads, 4 KV heads x 256; no sliding_window key.
    auto b = transformer({"gemma2", 26, 2304, 8, 4, 9216, 8192});
    b.setUint32(b.key("attention.key_length"), 256).setUint32(b.key("attention.value_length"), 256);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->slidingWindow, 4096u);
    EXPECT_EQ(layersWhere(*info, isSwa), range(0, 26, 2));
    EXPECT_EQ(layersWhere(*info, isFull), range(1, 26, 2));
}

GgufBuilder gptOss20b() {
    auto b = transformer({"gpt-oss", 24, 2880, 64, 8, 2880, 131072});
    b.setUint32(b.key("attention.key_length"), 64).setUint32(b.key("attention.value_length"), 64);
    b.setUint32(b.key("expert_count"), 32).setUint32(b.key("expert_used_count"), 4);
    return b;
}

TEST(SwaPattern, GptOssAlternatesSlidingAndFull) {
    auto b = gptOss20b();
    b.setUint32(b.key("attention.sliding_window"), 128);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->slidingWindow, 128u);
    EXPECT_EQ(layersWhere(*info, isSwa), range(0, 24, 2));
    EXPECT_EQ(layersWhere(*info, isFull), range(1, 24, 2));
    EXPECT_EQ(info->layers[1].keyHeadDim, 64u);
}

TEST(SwaPattern, GptOssWithoutSlidingWindowIsAMissingKey) {
    const auto info = interpretModel(gptOss20b().build());
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.error().code, "model.missing-key");
    EXPECT_NE(info.error().message.find("gpt-oss.attention.sliding_window"), std::string::npos);
}

TEST(SwaPattern, Cohere2HasOneDenseLayerInFour) {
    auto b = transformer({"cohere2", 32, 4096, 32, 8, 14336});
    b.setUint32(b.key("attention.sliding_window"), 4096);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isFull), range(3, 32, 4));
    EXPECT_EQ(layersWhere(*info, isSwa).size(), 24u);
}

TEST(SwaPattern, Cohere2MoeScalarPatternIsDenseFirst) {
    auto b = transformer({"cohere2moe", 8, 1024, 8, 8, 2048});
    b.setUint32(b.key("attention.sliding_window"), 1024)
        .setUint32(b.key("attention.sliding_window_pattern"), 4);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isFull), (std::vector<std::uint32_t>{0, 4}));
}

TEST(SwaPattern, Llama4IsChunkedWith8192TokenChunks) {
    // Llama-4-Scout: 48 layers, 40 heads, 8 KV heads x 128; 3 chunked layers then 1 full.
    auto b = transformer({"llama4", 48, 5120, 40, 8, 16384, 10485760});
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->slidingWindow, 8192u);
    EXPECT_EQ(layersWhere(*info, [](const auto& l) { return l.attention == AttentionKind::Chunked; }).size(),
              36u);
    EXPECT_EQ(layersWhere(*info, isFull), range(3, 48, 4));
    EXPECT_TRUE(info->hasSlidingWindowLayers());

    b.setUint32(b.key("attention.sliding_window"), 0); // a present 0 turns chunking off
    const auto dense = interpretModel(b.build());
    ASSERT_TRUE(dense.ok());
    EXPECT_EQ(layersWhere(*dense, isFull).size(), 48u);
    EXPECT_EQ(dense->slidingWindow, 0u);
}

TEST(SwaPattern, Exaone4OnlyInterleavesAtSixtyFourLayers) {
    auto big = transformer({"exaone4", 64, 5120, 40, 8, 27392});
    big.setUint32(big.key("attention.sliding_window"), 4096);
    const auto info = interpretModel(big.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isFull), range(3, 64, 4));

    auto small = transformer({"exaone4", 30, 2048, 32, 8, 4096});
    small.setUint32(small.key("attention.sliding_window"), 4096);
    EXPECT_FALSE(interpretModel(small.build())->hasSlidingWindowLayers());
}

// Gemma-3n E2B: 30 layers, 8 heads, 2 KV heads x 256, n_swa 512, pattern 5; layers >= 20 reuse KV.
TEST(SwaPattern, Gemma3nSharesKvAfterLayerTwenty) {
    auto b = transformer({"gemma3n", 30, 2048, 8, 2, 8192});
    b.setUint32(b.key("attention.key_length"), 256).setUint32(b.key("attention.value_length"), 256);
    b.setUint32(b.key("attention.sliding_window"), 512);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isFull), range(4, 30, 5));
    EXPECT_EQ(layersWhere(*info, [](const auto& l) { return l.hasKv; }), range(0, 20));
    EXPECT_EQ(info->layers[25].attention, AttentionKind::SlidingWindow); // attends, with borrowed KV
    EXPECT_FALSE(info->layers[25].hasKv);
}

// Gemma-4 (E2B-like): per-layer pattern, wider full-attention heads, 20 shared-KV layers.
TEST(SwaPattern, Gemma4UsesTheArrayPatternSwaHeadDimsAndSharedKvLayers) {
    auto b = transformer({"gemma4", 35, 1536, 8, 0, 6144, 131072});
    std::vector<bool> pattern;
    std::vector<std::uint32_t> kvHeads;
    for (int l = 0; l < 35; ++l) {
        pattern.push_back(l % 5 != 4);
        kvHeads.push_back(l % 5 != 4 ? 2 : 1);
    }
    b.setBoolArray(b.key("attention.sliding_window_pattern"), pattern);
    b.setUint32Array(b.key("attention.head_count_kv"), kvHeads);
    b.setUint32(b.key("attention.key_length"), 512).setUint32(b.key("attention.value_length"), 512);
    b.setUint32(b.key("attention.key_length_swa"), 256).setUint32(b.key("attention.value_length_swa"), 256);
    b.setUint32(b.key("attention.sliding_window"), 512).setUint32(b.key("attention.shared_kv_layers"), 20);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isFull), range(4, 35, 5));
    const auto& swa = info->layers[0];
    const auto& full = info->layers[4];
    EXPECT_EQ(swa.keyHeadDim, 256u);
    EXPECT_EQ(swa.valueHeadDim, 256u);
    EXPECT_EQ(swa.headCountKv, 2u);
    EXPECT_EQ(full.keyHeadDim, 512u);
    EXPECT_EQ(full.headCountKv, 1u);
    EXPECT_EQ(layersWhere(*info, [](const auto& l) { return l.hasKv; }), range(0, 15));
}

TEST(SwaPattern, KeyLengthSwaAppliesOnlyToSlidingLayers) {
    auto b = gemma3_1b();
    b.setUint32(b.key("attention.key_length_swa"), 128).setUint32(b.key("attention.value_length_swa"), 64);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->layers[0].keyHeadDim, 128u);
    EXPECT_EQ(info->layers[0].valueHeadDim, 64u);
    EXPECT_EQ(info->layers[5].keyHeadDim, 256u);
    EXPECT_EQ(info->layers[5].valueHeadDim, 256u);
}

TEST(SwaPattern, PeriodRule) {
    // l % P < P-1 (last of each period dense) vs dense_first (l % P != 0); P = 0 marks every layer.
    EXPECT_TRUE(isSwaLayerInPeriod(0, 4, false));
    EXPECT_FALSE(isSwaLayerInPeriod(3, 4, false));
    EXPECT_FALSE(isSwaLayerInPeriod(0, 4, true));
    EXPECT_TRUE(isSwaLayerInPeriod(3, 4, true));
    EXPECT_TRUE(isSwaLayerInPeriod(7, 0, false));
    EXPECT_FALSE(isSwaLayerInPeriod(5, 1, false)); // P = 1: every layer dense
}

} // namespace
} // namespace llamafit

// Which layers attend, cache K/V and hold recurrent state in hybrid and recurrent models
// (llama.cpp create_memory filters and the is_recr rules of src/models/<arch>.cpp).
#include "core/common/units.h"
#include "core/model/layermix.h"
#include "tests/unit/model/modeltestshapes.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

using test::GgufBuilder;
using test::layersWhere;
using test::range;
using test::transformer;

bool hasKv(const LayerInfo& layer) {
    return layer.hasKv;
}
bool isRecurrent(const LayerInfo& layer) {
    return layer.recurrent;
}

void setSsm(GgufBuilder& b, std::uint32_t conv, std::uint32_t inner, std::uint32_t state,
            std::uint32_t groups) {
    b.setUint32(b.key("ssm.conv_kernel"), conv).setUint32(b.key("ssm.inner_size"), inner);
    b.setUint32(b.key("ssm.state_size"), state).setUint32(b.key("ssm.group_count"), groups);
    b.setUint32(b.key("ssm.time_step_rank"), 32);
}

// Qwen3.5-35B-A3B (llama-cpp-memory.md §7 row 14).
GgufBuilder qwen35_35bA3b(std::uint32_t blocks = 40) {
    auto b = transformer({"qwen35moe", blocks, 2048, 16, 2, 0, 262144});
    b.setUint32(b.key("attention.key_length"), 256).setUint32(b.key("attention.value_length"), 256);
    b.setUint32(b.key("expert_count"), 256).setUint32(b.key("expert_used_count"), 8);
    b.setUint32(b.key("expert_feed_forward_length"), 512)
        .setUint32(b.key("expert_shared_feed_forward_length"), 512);
    setSsm(b, 4, 4096, 128, 16);
    b.setUint32(b.key("full_attention_interval"), 4);
    return b;
}

TEST(LayerMix, Qwen35_35bA3bHasTenAttentionAndThirtyRecurrentLayers) {
    const auto info = interpretModel(qwen35_35bA3b().build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv), range(3, 40, 4));
    EXPECT_EQ(layersWhere(*info, isRecurrent).size(), 30u);
    for (const auto l : range(3, 40, 4)) {
        const auto& layer = info->layers[l];
        EXPECT_EQ(layer.attention, AttentionKind::Full);
        EXPECT_FALSE(layer.recurrent);
        EXPECT_EQ(layer.headCountKv, 2u);
        EXPECT_EQ(layer.keyHeadDim, 256u);
        EXPECT_EQ(layer.valueHeadDim, 256u);
    }
    const auto& recurrent = info->layers[0];
    EXPECT_EQ(recurrent.attention, AttentionKind::None);
    EXPECT_FALSE(recurrent.hasKv);
    EXPECT_EQ(recurrent.recurrentConvWidth, 24576u);   // (4-1) * (4096 + 2*16*128)
    EXPECT_EQ(recurrent.recurrentStateWidth, 524288u); // 128 * 4096
    // §7 row 14: KV 80.00 MiB at 4096 cells (f16); RS 62.81 MiB per slot, 251.25 MiB at 4 slots.
    EXPECT_EQ(test::f16KvBytesPerToken(*info) * 4096, 80 * kMiB);
    EXPECT_EQ(test::rsBytesPerSequence(*info), 65863680u);
    EXPECT_EQ(test::rsBytesPerSequence(*info) * 4, 251 * kMiB + kMiB / 4);
    EXPECT_TRUE(info->hasRecurrentLayers());
    EXPECT_TRUE(info->hasAttentionLayers());
    EXPECT_EQ(info->ssmConvKernel, 4u);
    EXPECT_EQ(info->ssmInnerSize, 4096u);
    EXPECT_EQ(info->ssmStateSize, 128u);
    EXPECT_EQ(info->ssmGroupCount, 16u);
    EXPECT_EQ(info->sharedExpertFeedForwardLength, 512u);
}

TEST(LayerMix, QwenIntervalDefaultsToFour) {
    GgufFile file = qwen35_35bA3b(8).build();
    file.metadata.erase(
        std::remove_if(file.metadata.begin(), file.metadata.end(),
                       [](const auto& kv) { return kv.first == "qwen35moe.full_attention_interval"; }),
        file.metadata.end());
    file.rebuildIndex();
    const auto info = interpretModel(file);
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv), (std::vector<std::uint32_t>{3, 7}));
}

TEST(LayerMix, RecurrentLayersArrayOverridesTheInterval) {
    auto b = qwen35_35bA3b(6);
    b.setBoolArray(b.key("attention.recurrent_layers"), {true, false, true, true, false, true});
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv), (std::vector<std::uint32_t>{1, 4}));
    EXPECT_EQ(layersWhere(*info, isRecurrent), (std::vector<std::uint32_t>{0, 2, 3, 5}));
}

TEST(LayerMix, ZeroAttentionIntervalIsABadValue) {
    auto b = qwen35_35bA3b(8);
    b.setUint32(b.key("full_attention_interval"), 0);
    const auto info = interpretModel(b.build());
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.error().code, "model.bad-value");
}

TEST(LayerMix, Qwen35NextnBlockIsDenseAndOutsideBothCaches) {
    auto b = qwen35_35bA3b(41);
    b.setUint32(b.key("nextn_predict_layers"), 1);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->trunkLayerCount(), 40u);
    const auto& mtp = info->layers[40];
    EXPECT_TRUE(mtp.nextn);
    EXPECT_FALSE(mtp.recurrent);
    EXPECT_FALSE(mtp.hasKv);
    EXPECT_EQ(mtp.attention, AttentionKind::Full);
    EXPECT_EQ(layersWhere(*info, hasKv).size(), 10u);
    EXPECT_EQ(layersWhere(*info, isRecurrent).size(), 30u);
}

TEST(LayerMix, Qwen3NextAndQwen35DenseUseTheSameRule) {
    for (const std::string arch : {"qwen3next", "qwen35"}) {
        auto b = transformer({arch, 12, 2048, 16, 2, 5120});
        setSsm(b, 4, 4096, 128, 16);
        const auto info = interpretModel(b.build());
        ASSERT_TRUE(info.ok()) << arch << ": " << info.error().message;
        EXPECT_EQ(layersWhere(*info, hasKv), (std::vector<std::uint32_t>{3, 7, 11})) << arch;
    }
}

TEST(LayerMix, MiniMax01DefaultIntervalIsEight) {
    auto b = transformer({"minimax-01", 16, 6144, 64, 8, 9216});
    b.setUint32(b.key("attention.key_length"), 128).setUint32(b.key("attention.value_length"), 128);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv), (std::vector<std::uint32_t>{7, 15}));
    EXPECT_EQ(info->layers[0].recurrentStateWidth, 128u * 128 * 64); // head_dim^2 * n_head
    EXPECT_EQ(info->layers[0].recurrentConvWidth, 0u);
}

// Granite-4.0-H-Tiny-like: 40 layers, attention (4 KV heads) at 5, 15, 25, 35, Mamba-2 elsewhere.
TEST(LayerMix, GraniteHybridAttendsWhereHeadCountKvIsNonZero) {
    auto b = transformer({"granitehybrid", 40, 1536, 12, 0, 512});
    std::vector<std::uint32_t> kv(40, 0);
    for (const auto l : {5u, 15u, 25u, 35u}) {
        kv[l] = 4;
    }
    b.setUint32Array(b.key("attention.head_count_kv"), kv);
    setSsm(b, 4, 3072, 128, 1);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv), (std::vector<std::uint32_t>{5, 15, 25, 35}));
    EXPECT_EQ(layersWhere(*info, isRecurrent).size(), 36u);
    EXPECT_EQ(info->layers[5].keyHeadDim, 128u); // 1536 / 12
    EXPECT_EQ(info->layers[0].recurrentConvWidth, 3u * (3072 + 2 * 128));
    EXPECT_EQ(info->layers[0].recurrentStateWidth, 128u * 3072);
}

// Jamba: attention every 8th layer from 4; Mamba-1 ignores ssm.group_count.
TEST(LayerMix, JambaIsMambaOneWithSparseAttention) {
    auto b = transformer({"jamba", 32, 4096, 32, 0, 14336});
    std::vector<std::uint32_t> kv(32, 0);
    for (std::uint32_t l = 4; l < 32; l += 8) {
        kv[l] = 8;
    }
    b.setUint32Array(b.key("attention.head_count_kv"), kv);
    setSsm(b, 4, 8192, 16, 8);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv), range(4, 32, 8));
    EXPECT_EQ(info->layers[0].recurrentConvWidth, 3u * 8192);
    EXPECT_EQ(info->layers[0].recurrentStateWidth, 16u * 8192);
    EXPECT_EQ(info->ssmGroupCount, 0u);
}

// LFM2-1.2B: 16 layers, 6 attention layers (8 KV heads), short convolutions with L_cache 3.
GgufBuilder lfm2() {
    auto b = transformer({"lfm2", 16, 2048, 32, 0, 8192, 128000});
    b.setUint32Array(b.key("attention.head_count_kv"), {0, 0, 8, 0, 0, 8, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0});
    b.setUint32(b.key("shortconv.l_cache"), 3);
    return b;
}

TEST(LayerMix, Lfm2ConvLayersHoldOnlyAShortConvState) {
    const auto info = interpretModel(lfm2().build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv), (std::vector<std::uint32_t>{2, 5, 8, 10, 12, 14}));
    EXPECT_EQ(layersWhere(*info, isRecurrent).size(), 10u);
    EXPECT_EQ(info->layers[0].recurrentConvWidth, 2048u * 2);
    EXPECT_EQ(info->layers[0].recurrentStateWidth, 0u);
    // §5 (gguf-parser #31): 384 MiB of KV at 32768 tokens.
    EXPECT_EQ(test::f16KvBytesPerToken(*info) * 32768, 384 * kMiB);
    EXPECT_FALSE(info->hasSlidingWindowLayers());
}

TEST(LayerMix, Lfm2WithSlidingWindowMakesItsAttentionLayersSwa) {
    auto b = lfm2();
    b.setUint32(b.key("attention.sliding_window"), 4096);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, [](const auto& l) { return l.attention == AttentionKind::SlidingWindow; }),
              (std::vector<std::uint32_t>{2, 5, 8, 10, 12, 14}));
    EXPECT_EQ(info->slidingWindow, 4096u);
}

// Nemotron-H: Mamba (kv 0, ff 0), attention (kv > 0, ff 0) and MLP-only (ff > 0) blocks.
TEST(LayerMix, NemotronHHasThreeKindsOfLayers) {
    auto b = transformer({"nemotron_h", 6, 4096, 32, 0, 0});
    b.setUint32Array(b.key("attention.head_count_kv"), {0, 0, 8, 0, 0, 0});
    b.setUint32Array(b.key("feed_forward_length"), {0, 21504, 0, 21504, 0, 21504});
    setSsm(b, 4, 8192, 128, 8);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isRecurrent), (std::vector<std::uint32_t>{0, 4}));
    EXPECT_EQ(layersWhere(*info, hasKv), (std::vector<std::uint32_t>{2}));
    for (const auto l : {1u, 3u, 5u}) {
        EXPECT_EQ(info->layers[l].attention, AttentionKind::None) << l;
        EXPECT_FALSE(info->layers[l].recurrent) << l;
        EXPECT_EQ(info->layers[l].feedForwardLength, 21504u);
    }
    EXPECT_EQ(info->layers[0].recurrentConvWidth, 3u * (8192 + 2 * 8 * 128));
}

TEST(LayerMix, FalconH1LayersHaveBothKvAndRecurrentState) {
    auto b = transformer({"falcon-h1", 36, 1024, 8, 2, 2048});
    b.setUint32(b.key("attention.key_length"), 64).setUint32(b.key("attention.value_length"), 64);
    setSsm(b, 4, 1536, 128, 1);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, hasKv).size(), 36u);
    EXPECT_EQ(layersWhere(*info, isRecurrent).size(), 36u);
    EXPECT_EQ(info->layers[7].recurrentConvWidth, 3u * (1536 + 256));
    EXPECT_EQ(info->layers[7].recurrentStateWidth, 128u * 1536);
}

TEST(LayerMix, Mamba2IsRecurrentEverywhereWithoutKv) {
    GgufBuilder b("mamba2");
    b.setUint32(b.key("block_count"), 64).setUint32(b.key("context_length"), 1048576);
    b.setUint32(b.key("embedding_length"), 2560).setUint32(b.key("attention.head_count"), 0);
    setSsm(b, 4, 5120, 128, 1);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isRecurrent).size(), 64u);
    EXPECT_TRUE(layersWhere(*info, hasKv).empty());
    EXPECT_FALSE(info->hasAttentionLayers());
    EXPECT_EQ(info->layers[63].recurrentConvWidth, 3u * (5120 + 256));
    EXPECT_EQ(info->layers[63].recurrentStateWidth, 128u * 5120);
}

TEST(LayerMix, Rwkv7IsRecurrentEverywhereWithWkvState) {
    // RWKV7-g1-1.5B: 24 layers, n_embd 2048, head size 64.
    GgufBuilder b("rwkv7");
    b.setUint32(b.key("block_count"), 24).setUint32(b.key("context_length"), 1048576);
    b.setUint32(b.key("embedding_length"), 2048).setUint32(b.key("wkv.head_size"), 64);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(layersWhere(*info, isRecurrent).size(), 24u);
    EXPECT_FALSE(info->hasAttentionLayers());
    EXPECT_EQ(info->layers[0].recurrentConvWidth, 2u * 2048); // token_shift_count defaults to 2
    EXPECT_EQ(info->layers[0].recurrentStateWidth, 2048u * 64);
}

} // namespace
} // namespace llamafit

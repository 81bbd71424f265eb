// ModelInfo's weight and parameter totals and layer-kind queries.
#include "core/model/modelinfo.h"
#include "tests/unit/model/modeltestshapes.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

// A small MoE: 8 experts, 2 used, plus dense and shared-expert tensors of mixed types.
ModelInfo smallMoe() {
    auto b = test::transformer({"qwen3moe", 2, 256, 4, 4, 512});
    b.setUint32(b.key("expert_count"), 8).setUint32(b.key("expert_used_count"), 2);
    b.addTensor("token_embd.weight", GgmlType::Q8_0, {256, 1000});         // 256000 values
    b.addTensor("output_norm.weight", GgmlType::F32, {256});               // 256
    b.addTensor("blk.0.attn_q.weight", GgmlType::F16, {256, 256});         // 65536
    b.addTensor("blk.0.ffn_up_exps.weight", GgmlType::Q4_K, {256, 64, 8}); // 131072, 2/8 active
    b.addTensor("blk.0.ffn_up_shexp.weight", GgmlType::Q4_K, {256, 64});   // 16384
    auto info = interpretModel(b.build());
    EXPECT_TRUE(info.ok());
    return info.ok() ? info.value() : ModelInfo{};
}

TEST(ModelInfo, WeightBytesSumEveryTensor) {
    const auto info = smallMoe();
    const std::uint64_t q8 = 256u / 32 * 34 * 1000;
    const std::uint64_t f32 = 256u * 4;
    const std::uint64_t f16 = 256u * 256 * 2;
    const std::uint64_t q4k = 144u * 64 * 8 + 144u * 64; // one 256-value block per row
    EXPECT_EQ(info.weightBytes(), q8 + f32 + f16 + q4k);
    const auto byType = info.weightBytesByType();
    EXPECT_EQ(byType.at(GgmlType::Q8_0), q8);
    EXPECT_EQ(byType.at(GgmlType::Q4_K), q4k);
    EXPECT_EQ(byType.at(GgmlType::F16), f16);
    EXPECT_EQ(byType.size(), 4u);
}

TEST(ModelInfo, ParameterCountsScaleRoutedExpertsByUsedOverTotal) {
    const auto info = smallMoe();
    EXPECT_EQ(info.parameterCount(), 256000u + 256 + 65536 + 131072 + 16384);
    EXPECT_EQ(info.activeParameterCount(), 256000u + 256 + 65536 + 131072 / 8 * 2 + 16384);
}

TEST(ModelInfo, DenseModelIsFullyActive) {
    auto b = test::transformer({"llama", 1, 128, 2, 2, 256});
    b.addTensor("blk.0.attn_q.weight", GgmlType::F16, {128, 128});
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok());
    EXPECT_FALSE(info->isMoe());
    EXPECT_EQ(info->activeParameterCount(), info->parameterCount());
    EXPECT_EQ(info->parameterCount(), 128u * 128);
}

TEST(ModelInfo, LayerKindQueries) {
    ModelInfo info;
    EXPECT_FALSE(info.hasAttentionLayers());
    info.layers.resize(3);
    info.layers[0].attention = AttentionKind::None;
    info.layers[0].recurrent = true;
    info.layers[1].attention = AttentionKind::Full;
    info.layers[2].attention = AttentionKind::Full;
    EXPECT_TRUE(info.hasRecurrentLayers());
    EXPECT_TRUE(info.hasAttentionLayers());
    EXPECT_FALSE(info.hasSlidingWindowLayers());
    info.layers[2].attention = AttentionKind::Chunked;
    EXPECT_TRUE(info.hasSlidingWindowLayers());
}

} // namespace
} // namespace llamafit

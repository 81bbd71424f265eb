// Tensor roles, block indexes and the --cpu-moe expert pattern.
#include "core/model/tensorroles.h"
#include "tests/support/ggufbuilder.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

GgufTensorInfo tensor(const std::string& name, std::vector<std::uint64_t> shape,
                      GgmlType type = GgmlType::F16) {
    test::GgufBuilder b;
    b.addTensor(name, type, shape);
    return b.build().tensors.front();
}

TEST(TensorRoles, InputOutputLayerAndOther) {
    EXPECT_EQ(summarizeTensor(tensor("token_embd.weight", {2048, 1000}), "llama").role,
              TensorRole::TokenEmbedding);
    EXPECT_EQ(summarizeTensor(tensor("per_layer_token_embd.weight", {256, 1000}), "gemma3n").role,
              TensorRole::TokenEmbedding);
    EXPECT_EQ(summarizeTensor(tensor("output.weight", {2048, 1000}), "llama").role, TensorRole::Output);
    EXPECT_EQ(summarizeTensor(tensor("output_norm.weight", {2048}), "llama").role, TensorRole::Output);
    EXPECT_EQ(summarizeTensor(tensor("altup_proj.weight", {2048, 2048, 3}), "gemma3n").role,
              TensorRole::Output);
    // Loaded in the layer loop: block 0 holds the file's tensor, later layers copies of it.
    const TensorSummary ropeFactors = summarizeTensor(tensor("rope_freqs.weight", {64}), "llama");
    EXPECT_EQ(ropeFactors.role, TensorRole::Layer);
    EXPECT_EQ(ropeFactors.layer, 0);
    EXPECT_EQ(summarizeTensor(tensor("v.blk.0.attn_q.weight", {64, 64}), "llama").role, TensorRole::Other);
}

TEST(TensorRoles, TokenEmbdNormIsTheOutputNormOfLfm2Only) {
    EXPECT_EQ(summarizeTensor(tensor("token_embd_norm.weight", {2048}), "lfm2").role, TensorRole::Output);
    EXPECT_EQ(summarizeTensor(tensor("token_embd_norm.weight", {2048}), "bloom").role, TensorRole::Other);
}

TEST(TensorRoles, BlockIndexTypeBytesAndRowValues) {
    const auto t = summarizeTensor(tensor("blk.12.attn_q.weight", {4096, 4096}, GgmlType::Q8_0), "llama");
    EXPECT_EQ(t.role, TensorRole::Layer);
    EXPECT_EQ(t.layer, 12);
    EXPECT_EQ(t.type, GgmlType::Q8_0);
    EXPECT_EQ(t.rowValues, 4096u);
    EXPECT_EQ(t.bytes, 4096u / 32 * 34 * 4096);
    EXPECT_FALSE(t.expert);

    EXPECT_EQ(summarizeTensor(tensor("blk.x.attn_q.weight", {8}), "llama").layer, -1);
    EXPECT_EQ(summarizeTensor(tensor("blk.7", {8}), "llama").layer, -1);
    EXPECT_EQ(summarizeTensor(tensor("token_embd.weight", {8, 8}), "llama").layer, -1);
}

TEST(TensorRoles, RoutedExpertsFollowTheCpuMoePattern) {
    for (const char* name :
         {"blk.3.ffn_up_exps.weight", "blk.3.ffn_down_exps.weight", "blk.3.ffn_gate_exps.weight",
          "blk.3.ffn_gate_up_exps.weight", "blk.3.ffn_down_chexps.weight", "blk.3.ffn_gate_exps.bias"}) {
        EXPECT_TRUE(isRoutedExpertTensor(name)) << name;
    }
    for (const char* name : {"blk.3.ffn_up_shexp.weight", "blk.3.ffn_gate_inp.weight", "blk.3.ffn_up.weight",
                             "blk.3.exp_probs_b.bias", "ffn_up_exps.weight"}) {
        EXPECT_FALSE(isRoutedExpertTensor(name)) << name;
    }
    EXPECT_TRUE(summarizeTensor(tensor("blk.0.ffn_down_exps.weight", {512, 2048, 256}), "qwen35moe").expert);
}

} // namespace
} // namespace llamafit

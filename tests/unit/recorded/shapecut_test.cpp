// cutShape (tests/support/shapecut.h) on real shapes: the cut file keeps the first blocks with
// their per-layer metadata, the smaller vocabulary resizes token_embd/output, and the result
// still interprets; impossible cuts are named errors.

#include "core/model/modelinterpreter.h"
#include "tests/support/modelfiles.h"
#include "tests/support/shapecut.h"

#include <gtest/gtest.h>

namespace llamafit::test {
namespace {

TEST(ShapeCutTest, KeepsTheFirstBlocksAndTheirPerLayerValues) {
    const auto jamba = loadShape("jamba");
    ASSERT_TRUE(jamba.ok()) << jamba.error().message;
    const auto cut = cutShape(*jamba, {6, std::nullopt});
    ASSERT_TRUE(cut.ok()) << cut.error().message;
    EXPECT_EQ(cut->file.getUint("jamba.block_count"), 6u);
    const auto headsKv = cut->file.getIntArray("jamba.attention.head_count_kv");
    ASSERT_TRUE(headsKv.has_value());
    EXPECT_EQ(*headsKv, (std::vector<std::int64_t>{0, 0, 0, 0, 8, 0})); // block 4 is the attention block
    EXPECT_NE(cut->file.findTensor("blk.5.attn_norm.weight"), nullptr);
    for (const GgufTensorInfo& tensor : cut->file.tensors) {
        EXPECT_EQ(tensor.name.rfind("blk.6.", 0), std::string::npos) << tensor.name;
        EXPECT_EQ(tensor.name.rfind("blk.7.", 0), std::string::npos) << tensor.name;
    }
    EXPECT_LT(cut->file.tensorBytes(), jamba->file.tensorBytes());
    // Offsets follow each other again, with no gap where the dropped blocks were.
    for (std::size_t i = 1; i < cut->file.tensors.size(); ++i) {
        EXPECT_GE(cut->file.tensors[i].dataOffset,
                  cut->file.tensors[i - 1].dataOffset + cut->file.tensors[i - 1].bytes);
        EXPECT_LT(cut->file.tensors[i].dataOffset,
                  cut->file.tensors[i - 1].dataOffset + cut->file.tensors[i - 1].bytes + cut->file.alignment);
    }
    const auto file = ggufFileForSpec(*cut);
    ASSERT_TRUE(file.ok()) << file.error().message;
    const auto model = interpretModel(*file);
    ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
    EXPECT_EQ(model->blockCount, 6u);
}

TEST(ShapeCutTest, ASmallerVocabularyResizesTheEmbeddingAndOutput) {
    const auto llama = loadShape("llama");
    ASSERT_TRUE(llama.ok()) << llama.error().message;
    const auto cut = cutShape(*llama, {4, 32000});
    ASSERT_TRUE(cut.ok()) << cut.error().message;
    EXPECT_EQ(cut->vocabularySize, 32000u);
    EXPECT_EQ(cut->file.getUint("llama.vocab_size"), 32000u);
    const GgufTensorInfo* embedding = cut->file.findTensor("token_embd.weight");
    ASSERT_NE(embedding, nullptr);
    EXPECT_EQ(embedding->shape[1], 32000u);
    EXPECT_EQ(embedding->bytes, 2048u * 32000u * 2u); // f16: 125 MiB, under lavapipe's 128 MiB
    const auto file = ggufFileForSpec(*cut);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_TRUE(interpretModel(*file).ok());
}

TEST(ShapeCutTest, RefusesMoreBlocksThanTheShapeHasAndATinyVocabulary) {
    const auto llama = loadShape("llama");
    ASSERT_TRUE(llama.ok()) << llama.error().message;
    const auto tooMany = cutShape(*llama, {17, std::nullopt});
    ASSERT_FALSE(tooMany.ok());
    EXPECT_EQ(tooMany.error().code, "test.bad-cut");
    const auto none = cutShape(*llama, {0, std::nullopt});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, "test.bad-cut");
    const auto tiny = cutShape(*llama, {std::nullopt, 100});
    ASSERT_FALSE(tiny.ok());
    EXPECT_EQ(tiny.error().code, "test.bad-cut");
}

} // namespace
} // namespace llamafit::test

// Quant labels as the Hub parses them, their quality order and llama.cpp's bit widths.

#include "core/hub/quantlabel.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(QuantLabel, ReadsTheHubsLabelFromFileNames) {
    EXPECT_EQ(quantLabelOf("llama-2-7b-chat.Q2_K.gguf"), "Q2_K");
    EXPECT_EQ(quantLabelOf("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"), "Q4_K_M");
    EXPECT_EQ(quantLabelOf("gemma-2b-it-q4_k_m.gguf"), "Q4_K_M"); // upper-cased first
    EXPECT_EQ(quantLabelOf("Qwen3-30B-A3B-UD-Q4_K_XL.gguf"), "UD-Q4_K_XL");
    EXPECT_EQ(quantLabelOf("Qwen3-8B-Q2_K_XL.gguf"), "Q2_K_XL"); // Q2_K, then "_XL" as its size variation
    EXPECT_EQ(quantLabelOf("Qwen3-8B-BF16.gguf"), "BF16");       // not the F16 inside it
    EXPECT_EQ(quantLabelOf("grok-1-IQ3_XS-split-00001-of-00009.gguf"), "IQ3_XS");
    EXPECT_EQ(quantLabelOf("model-IQ3_XXS.gguf"), "IQ3_XXS");
    EXPECT_EQ(quantLabelOf("gpt-oss-20b-MXFP4_MOE.gguf"), "MXFP4_MOE");
    EXPECT_EQ(quantLabelOf("mistral-Q8_0-from-Q4_K_M.gguf"), "Q4_K_M"); // the last one wins
    EXPECT_EQ(quantLabelOf("model-Q4_0_4_4.gguf"), "Q4_0");             // Q4_0 is tried first
    EXPECT_EQ(quantLabelOf("tokenizer.json"), std::nullopt);
    EXPECT_EQ(quantLabelOf(""), std::nullopt);
}

TEST(QuantLabel, RanksLabelsBiggestFirst) {
    EXPECT_EQ(quantQualityRank("F32"), 0);
    EXPECT_LT(*quantQualityRank("BF16"), *quantQualityRank("Q8_0"));
    EXPECT_LT(*quantQualityRank("Q8_0"), *quantQualityRank("Q6_K"));
    EXPECT_LT(*quantQualityRank("Q4_K_XL"), *quantQualityRank("Q4_K_M"));
    EXPECT_EQ(quantQualityRank("UD-Q4_K_XL"), quantQualityRank("Q4_K_XL"));
    EXPECT_LT(*quantQualityRank("Q4_K_M"), *quantQualityRank("IQ4_XS"));
    EXPECT_LT(*quantQualityRank("IQ2_XXS"), *quantQualityRank("IQ1_S"));
    EXPECT_EQ(quantQualityRank("Q4_K_M_L"), std::nullopt);
    EXPECT_EQ(quantQualityRank("model"), std::nullopt);
}

TEST(QuantLabel, BitsAreTheFirstNumberAfterTheLetters) {
    EXPECT_EQ(quantBits("Q4_0"), 4);
    EXPECT_EQ(quantBits("F16"), 16);
    EXPECT_EQ(quantBits("BF16"), 16);
    EXPECT_EQ(quantBits("IQ2_XXS"), 2);
    EXPECT_EQ(quantBits("UD-Q8_K_XL"), 8);
    EXPECT_EQ(quantBits("MXFP4_MOE"), 4);
    EXPECT_EQ(quantBits("F32"), 32);
    EXPECT_EQ(quantBits("model"), std::nullopt);
}

} // namespace
} // namespace llamafit

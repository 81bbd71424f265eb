// validateSettings(): the combinations llama-server 0.7.0 refuses (§7 rows 7, 12, 13).
#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ServerSettings kvTypes(GgmlType k, GgmlType v, FlashAttention fa = FlashAttention::Auto) {
    ServerSettings s;
    s.contextTokens = 4096;
    s.parallelSlots = 1;
    s.cacheTypeK = k;
    s.cacheTypeV = v;
    s.flashAttention = fa;
    return s;
}

TEST(Validation, AllowsExactlyTheNineServerCacheTypes) {
    const auto& types = allowedCacheTypes();
    EXPECT_EQ(types.size(), 9u);
    for (GgmlType type : types) {
        EXPECT_TRUE(validateSettings(test::llama1B(), kvTypes(type, type)).ok()) << ggmlTypeName(type);
    }
    auto bad = validateSettings(test::llama1B(), kvTypes(GgmlType::Q4_K, GgmlType::F16));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "settings.unsupported-cache-type");
    EXPECT_NE(bad.error().message.find("q4_K"), std::string::npos);
    EXPECT_EQ(bad.error().settings, std::vector<Setting>{Setting::CacheTypeK});
    EXPECT_EQ(validateSettings(test::llama1B(), kvTypes(GgmlType::F16, GgmlType::Q6_K)).error().settings,
              std::vector<Setting>{Setting::CacheTypeV});
}

TEST(Validation, QuantizedKWithHeadDim80NeedsFlashAttentionOff) {
    // Row 12: -ctk q4_0 -ctv q4_0 -> "K cache type q4_0 with block size 32 does not divide n_embd_head_k=80".
    auto both = validateSettings(test::llamaHeadDim80(), kvTypes(GgmlType::Q4_0, GgmlType::Q4_0));
    ASSERT_FALSE(both.ok());
    EXPECT_EQ(both.error().code, "settings.block-size-mismatch");
    EXPECT_EQ(both.error().message, "K cache type q4_0 with block size 32 does not divide n_embd_head_k=80");
    // The head-dim check runs only with flash attention on, so turning it off is the other way out.
    EXPECT_EQ(both.error().settings, (std::vector<Setting>{Setting::CacheTypeK, Setting::FlashAttention}));
    EXPECT_EQ(
        validateSettings(test::llamaHeadDim80(), kvTypes(GgmlType::F16, GgmlType::Q4_0)).error().settings,
        (std::vector<Setting>{Setting::CacheTypeV, Setting::FlashAttention}));
    // Row 13: -ctk q4_0 -fa off loads (the K row of 8 x 80 = 640 values divides into blocks).
    EXPECT_TRUE(
        validateSettings(test::llamaHeadDim80(), kvTypes(GgmlType::Q4_0, GgmlType::F16, FlashAttention::Off))
            .ok());
}

TEST(Validation, QuantizedVWithFlashAttentionOffIsRefused) {
    // Row 7: -fa off -ctv q8_0 -> load error.
    auto result =
        validateSettings(test::llama1B(), kvTypes(GgmlType::F16, GgmlType::Q8_0, FlashAttention::Off));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "settings.quantized-v-needs-fa");
    EXPECT_EQ(result.error().settings, (std::vector<Setting>{Setting::CacheTypeV, Setting::FlashAttention}));
    EXPECT_TRUE(validateSettings(test::llama1B(), kvTypes(GgmlType::F16, GgmlType::Q8_0)).ok());
}

TEST(Validation, MlaNeedsEqualKAndVTypes) {
    auto result = validateSettings(test::deepseekMlaLite(), kvTypes(GgmlType::Q8_0, GgmlType::F16));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "settings.mla-kv-types-differ");
    EXPECT_EQ(result.error().settings, (std::vector<Setting>{Setting::CacheTypeK, Setting::CacheTypeV}));
    EXPECT_TRUE(validateSettings(test::deepseekMlaLite(), kvTypes(GgmlType::Q8_0, GgmlType::Q8_0)).ok());
}

TEST(Validation, RejectsBadValues) {
    ServerSettings zeroUbatch = kvTypes(GgmlType::F16, GgmlType::F16);
    zeroUbatch.ubatchTokens = 0;
    EXPECT_EQ(validateSettings(test::llama1B(), zeroUbatch).error().code, "settings.bad-value");
    EXPECT_EQ(validateSettings(test::llama1B(), zeroUbatch).error().settings,
              (std::vector<Setting>{Setting::Ubatch, Setting::Batch}));
    ServerSettings zeroSlots = kvTypes(GgmlType::F16, GgmlType::F16);
    zeroSlots.parallelSlots = 0;
    EXPECT_EQ(validateSettings(test::llama1B(), zeroSlots).error().code, "settings.bad-value");
    EXPECT_EQ(validateSettings(test::llama1B(), zeroSlots).error().settings,
              std::vector<Setting>{Setting::Parallel});
    ServerSettings badRegex = kvTypes(GgmlType::F16, GgmlType::F16);
    badRegex.tensorOverrides.push_back({"blk\\.(", "CPU"});
    EXPECT_EQ(validateSettings(test::llama1B(), badRegex).error().code, "settings.bad-value");
    EXPECT_EQ(validateSettings(test::llama1B(), badRegex).error().settings,
              std::vector<Setting>{Setting::TensorOverrides});
}

TEST(Validation, EstimateReportsTheSameErrors) {
    auto result = estimateMemory(test::llamaHeadDim80(), kvTypes(GgmlType::Q4_0, GgmlType::Q4_0));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "settings.block-size-mismatch");
}

} // namespace
} // namespace llamafit

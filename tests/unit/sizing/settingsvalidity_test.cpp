// cacheTypeRefusal(): the reason each K/V type would be refused, and only the types at fault.
#include "core/sizing/settingsvalidity.h"

#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(SettingsValidity, HeadDim80RefusesBlockTypesForKAndVWithFlashAttention) {
    const ModelInfo model = test::llamaHeadDim80();
    ASSERT_EQ(model.layers.front().keyHeadDim, 80u);
    ServerSettings settings;
    settings.flashAttention = FlashAttention::On;
    for (GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_1, GgmlType::IQ4_NL}) {
        const std::optional<Error> k = cacheTypeRefusal(model, settings, CacheSide::K, type);
        ASSERT_TRUE(k.has_value()) << ggmlTypeName(type);
        ServerSettings trial = settings;
        trial.cacheTypeK = type;
        EXPECT_EQ(*k, validateSettings(model, trial).error());
        EXPECT_EQ(k->settings.front(), Setting::CacheTypeK);
        const std::optional<Error> v = cacheTypeRefusal(model, settings, CacheSide::V, type);
        ASSERT_TRUE(v.has_value()) << ggmlTypeName(type);
        EXPECT_EQ(v->settings.front(), Setting::CacheTypeV);
    }
    for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16}) {
        EXPECT_FALSE(cacheTypeRefusal(model, settings, CacheSide::K, type).has_value());
    }
    // With -fa off only whole blocks per row are needed: 8 heads x 80 = 640 = 20 blocks.
    settings.flashAttention = FlashAttention::Off;
    EXPECT_FALSE(cacheTypeRefusal(model, settings, CacheSide::K, GgmlType::Q4_0).has_value());
}

TEST(SettingsValidity, QuantizedVNeedsFlashAttentionAndTheOtherSideIsNotBlamed) {
    const ModelInfo model = test::llama3_8B();
    ServerSettings settings;
    settings.flashAttention = FlashAttention::Off;
    settings.cacheTypeV = GgmlType::Q8_0; // refused as it stands, but not K's fault
    const std::optional<Error> v = cacheTypeRefusal(model, settings, CacheSide::V, GgmlType::Q4_0);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->code, "settings.quantized-v-needs-fa");
    EXPECT_EQ(v->settings, (std::vector<Setting>{Setting::CacheTypeV, Setting::FlashAttention}));
    EXPECT_FALSE(cacheTypeRefusal(model, settings, CacheSide::V, GgmlType::F16).has_value());
    EXPECT_FALSE(cacheTypeRefusal(model, settings, CacheSide::K, GgmlType::Q4_0).has_value());
}

TEST(SettingsValidity, ARefusalThatIsNotTheTypesFaultIsNotReported) {
    ServerSettings settings;
    settings.parallelSlots = 0; // refused whatever the types
    EXPECT_FALSE(
        cacheTypeRefusal(test::llamaHeadDim80(), settings, CacheSide::K, GgmlType::Q4_0).has_value());
}

TEST(SettingsValidity, MlaBlamesAMismatchOnTheTypeChosen) {
    ServerSettings settings;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    const std::optional<Error> k =
        cacheTypeRefusal(test::deepseekMlaLite(), settings, CacheSide::K, GgmlType::F16);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->code, "settings.mla-kv-types-differ");
    EXPECT_FALSE(
        cacheTypeRefusal(test::deepseekMlaLite(), settings, CacheSide::K, GgmlType::Q8_0).has_value());
}

} // namespace
} // namespace llamafit

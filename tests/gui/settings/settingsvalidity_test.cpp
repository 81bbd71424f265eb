// Refusals mapped onto controls, and the reason each K/V type would be refused.
#include "ui/settings/settingsvalidity.h"

#include "core/sizing/estimator.h"
#include "tests/gui/settings/settingstestmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using Controls = std::vector<SettingsControl>;

TEST(SettingsValidity, HeadDim80RefusesBlockTypesForKAndVWithFlashAttention) {
    const Result<LoadedModel> model = test::headDim80Model();
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_EQ(model->info.layers.front().keyHeadDim, 80u);
    ServerSettings settings;
    settings.flashAttention = FlashAttention::On;
    for (GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_1, GgmlType::IQ4_NL}) {
        const std::optional<std::string> k = cacheTypeRefusal(model->info, settings, CacheSide::K, type);
        ASSERT_TRUE(k.has_value()) << ggmlTypeName(type);
        ServerSettings trial = settings;
        trial.cacheTypeK = type;
        EXPECT_EQ(*k, validateSettings(model->info, trial).error().message);
        EXPECT_NE(k->find("n_embd_head_k=80"), std::string::npos) << *k;
        EXPECT_TRUE(cacheTypeRefusal(model->info, settings, CacheSide::V, type).has_value());
    }
    for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16}) {
        EXPECT_FALSE(cacheTypeRefusal(model->info, settings, CacheSide::K, type).has_value());
    }
    // With -fa off only whole blocks per row are needed: 8 heads x 80 = 640 = 20 blocks.
    settings.flashAttention = FlashAttention::Off;
    EXPECT_FALSE(cacheTypeRefusal(model->info, settings, CacheSide::K, GgmlType::Q4_0).has_value());
}

TEST(SettingsValidity, QuantizedVNeedsFlashAttentionAndTheOtherSideIsNotBlamed) {
    const Result<LoadedModel> model = loadModel("llama-3-8b-q4_k_m");
    ASSERT_TRUE(model.ok());
    ServerSettings settings;
    settings.flashAttention = FlashAttention::Off;
    settings.cacheTypeV = GgmlType::Q8_0; // refused as it stands, but not K's fault
    const std::optional<std::string> v =
        cacheTypeRefusal(model->info, settings, CacheSide::V, GgmlType::Q4_0);
    ASSERT_TRUE(v.has_value());
    EXPECT_NE(v->find("flash_attn"), std::string::npos) << *v;
    EXPECT_FALSE(cacheTypeRefusal(model->info, settings, CacheSide::V, GgmlType::F16).has_value());
    EXPECT_FALSE(cacheTypeRefusal(model->info, settings, CacheSide::K, GgmlType::Q4_0).has_value());
}

TEST(SettingsValidity, ErrorsNameTheirControls) {
    using enum SettingsControl;
    EXPECT_EQ(offendingControls({"settings.quantized-v-needs-fa", "quantized V cache requires flash_attn"}),
              (Controls{CacheTypeV, FlashAttention}));
    EXPECT_EQ(offendingControls({"settings.block-size-mismatch",
                                 "K cache type q4_0 with block size 32 does not divide n_embd_head_k=80"}),
              (Controls{CacheTypeK, FlashAttention}));
    EXPECT_EQ(offendingControls({"settings.block-size-mismatch", "V cache type q4_0 with block size 32 does "
                                                                 "not divide the V row of layer 0"}),
              Controls{CacheTypeV});
    EXPECT_EQ(offendingControls({"settings.mla-kv-types-differ", "model does not support different K"}),
              (Controls{CacheTypeK, CacheTypeV}));
    EXPECT_EQ(offendingControls({"settings.unsupported-cache-type", "-ctv q6_K: Unsupported cache type"}),
              Controls{CacheTypeV});
    EXPECT_EQ(offendingControls({"settings.bad-value", "-np 0: at least one slot is needed"}),
              (Controls{Slots, Context}));
    EXPECT_EQ(offendingControls({"settings.bad-value", "-b and -ub must be at least 1"}),
              (Controls{Batch, Ubatch}));
    EXPECT_EQ(offendingControls({"settings.bad-value", "-ts has 3 entries"}), Controls{ExtraFlags});
}

} // namespace
} // namespace llamafit

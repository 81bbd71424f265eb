// -md, -ngld, -ctkd and -ctvd read into ServerSettings::draftModel and written back
// (core/flags/draftflags.h), with their spellings and refusals.
#include "core/flags/serverargs.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(DraftFlags, ReadsTheDraftModelAndItsSettingsInEverySpelling) {
    const auto parsed = parseServerArgs({"--spec-draft-model", "d.gguf", "--gpu-layers-draft", "all",
                                         "--cache-type-k-draft", "q8_0", "--spec-draft-type-v", "q4_0"});
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const DraftModelSettings& draft = parsed->settings.draftModel;
    EXPECT_EQ(draft.path, "d.gguf");
    ASSERT_TRUE(draft.gpuLayers.has_value());
    EXPECT_EQ(draft.gpuLayers->text(), "all");
    EXPECT_EQ(draft.cacheTypeK, GgmlType::Q8_0);
    EXPECT_EQ(draft.cacheTypeV, GgmlType::Q4_0);
    EXPECT_TRUE(parsed->unmodelledFlags.empty());
    // The target's cache types are untouched.
    EXPECT_EQ(parsed->settings.cacheTypeK, GgmlType::F16);
}

TEST(DraftFlags, RoundTripThroughToServerArgsWithoutDefaults) {
    ServerSettings settings;
    settings.draftModel.path = "/models/draft.gguf";
    settings.draftModel.gpuLayers = GpuLayers::fromText("12");
    settings.draftModel.cacheTypeV = GgmlType::Q8_0;
    const std::vector<std::string> args = toServerArgs(settings);
    EXPECT_EQ(args, (std::vector<std::string>{"--spec-draft-type-v", "q8_0", "--spec-draft-ngl", "12",
                                              "--spec-draft-model", "/models/draft.gguf"}));
    const auto back = parseServerArgs(args);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->settings, settings);
}

TEST(DraftFlags, BadValuesNameTheDraftSetting) {
    const auto badType = parseServerArgs({"-ctkd", "q3_k"});
    ASSERT_FALSE(badType.ok());
    EXPECT_EQ(badType.error().settings, std::vector<Setting>{Setting::DraftCacheTypeK});
    const auto badLayers = parseServerArgs({"-ngld", "many"});
    ASSERT_FALSE(badLayers.ok());
    EXPECT_EQ(badLayers.error().settings, std::vector<Setting>{Setting::DraftGpuLayers});
    const auto emptyPath = parseServerArgs({"-md", ""});
    ASSERT_FALSE(emptyPath.ok());
    EXPECT_EQ(emptyPath.error().settings, std::vector<Setting>{Setting::DraftModel});
}

TEST(DraftFlags, TheDraftsPlacementFlagsStayNotModelledWithAReason) {
    const auto parsed = parseServerArgs({"-md", "d.gguf", "-devd", "CUDA1", "-cmoed"});
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    ASSERT_EQ(parsed->unmodelledFlags.size(), 2u);
}

} // namespace
} // namespace llamafit

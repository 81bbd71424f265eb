// --spec-type, --spec-draft-n-max and --spec-draft-n-ubatch read into ServerSettings::speculative
// and written back (core/flags/speculativeflags.h).
#include "core/flags/serverargs.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(SpeculativeFlags, ReadsTheTypeListAndTheDraftCounts) {
    const auto parsed = parseServerArgs(
        {"--spec-type", "ngram-mod,draft-mtp", "--spec-draft-n-max", "5", "--spec-draft-n-ubatch", "128"});
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const SpeculativeSettings& spec = parsed->settings.speculative;
    EXPECT_EQ(spec.types,
              (std::vector<SpeculativeType>{SpeculativeType::NgramMod, SpeculativeType::DraftMtp}));
    EXPECT_TRUE(spec.uses(SpeculativeType::DraftMtp));
    EXPECT_EQ(spec.draftMax, 5u);
    EXPECT_EQ(spec.draftUbatch, 128u);
    EXPECT_TRUE(parsed->unmodelledFlags.empty());
}

TEST(SpeculativeFlags, NoneIsTheEmptyListAndDefaultsAreNotWritten) {
    const auto parsed = parseServerArgs({"--spec-type", "none", "--spec-draft-n-max", "3"});
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->settings, ServerSettings{});
    EXPECT_TRUE(toServerArgs(parsed->settings).empty());
}

TEST(SpeculativeFlags, RoundTripThroughToServerArgs) {
    ServerSettings settings;
    settings.speculative.types = {SpeculativeType::DraftMtp};
    settings.speculative.draftMax = 2;
    settings.speculative.draftUbatch = 64;
    const std::vector<std::string> args = toServerArgs(settings);
    EXPECT_EQ(args, (std::vector<std::string>{"--spec-type", "draft-mtp", "--spec-draft-n-max", "2",
                                              "--spec-draft-n-ubatch", "64"}));
    const auto back = parseServerArgs(args);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->settings, settings);
}

TEST(SpeculativeFlags, AnUnknownTypeNamesTheFlagAndTheSetting) {
    const auto bad = parseServerArgs({"--spec-type", "mtp"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "args.bad-value");
    EXPECT_EQ(bad.error().settings, std::vector<Setting>{Setting::SpeculativeType});
    EXPECT_NE(bad.error().message.find("draft-mtp"), std::string::npos);
    EXPECT_FALSE(parseServerArgs({"--spec-draft-n-max", "-1"}).ok());
}

} // namespace
} // namespace llamafit

// -mm/--mmproj, --mmproj-offload / --no-mmproj-offload and --image-min/max-tokens read into
// ServerSettings::projector and written back (core/flags/projectorflags.h).
#include "core/flags/serverargs.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(ProjectorFlags, ReadsThePathTheOffloadSwitchAndTheTokenLimits) {
    const auto parsed = parseServerArgs({"-mm", "mmproj.gguf", "--no-mmproj-offload", "--image-min-tokens",
                                         "256", "--image-max-tokens", "1024"});
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    ProjectorSetting expected;
    expected.path = "mmproj.gguf";
    expected.offload = false;
    expected.imageMinTokens = 256;
    expected.imageMaxTokens = 1024;
    EXPECT_EQ(parsed->settings.projector, expected);
    EXPECT_TRUE(parsed->unmodelledFlags.empty());
    const auto again = parseServerArgs({"--no-mmproj-offload", "--mmproj-offload"});
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->settings.projector.offload); // the last switch wins
}

TEST(ProjectorFlags, RoundTripThroughToServerArgs) {
    ServerSettings settings;
    settings.projector.path = "p.gguf";
    settings.projector.offload = false;
    settings.projector.imageMaxTokens = 500;
    const std::vector<std::string> args = toServerArgs(settings);
    EXPECT_EQ(args, (std::vector<std::string>{"-mm", "p.gguf", "--no-mmproj-offload", "--image-max-tokens",
                                              "500"}));
    const auto back = parseServerArgs(args);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->settings, settings);
}

TEST(ProjectorFlags, ATokenLimitThatIsNotANumberNamesTheFlagAndTheSetting) {
    const auto bad = parseServerArgs({"--image-max-tokens", "many"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "args.bad-value");
    EXPECT_EQ(bad.error().settings, std::vector<Setting>{Setting::ImageMaxTokens});
}

TEST(ProjectorFlags, TheUrlAndDeviceFlagsStayNotModelledWithAReason) {
    const auto parsed = parseServerArgs({"-mmdev", "none", "-mmu", "http://127.0.0.1/p.gguf"});
    ASSERT_TRUE(parsed.ok());
    ASSERT_EQ(parsed->unmodelledFlags.size(), 2u);
}

} // namespace
} // namespace llamafit

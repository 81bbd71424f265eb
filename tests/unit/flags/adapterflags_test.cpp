// --lora and --lora-scaled read into ServerSettings::loraAdapters and written back
// (core/flags/adapterflags.h).
#include "core/flags/serverargs.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(AdapterFlags, ReadsPathsAndScalesInOrder) {
    const auto parsed =
        parseServerArgs({"--lora", "a.gguf,b.gguf", "--lora-scaled", "c.gguf:0.5,d:e.gguf:2"});
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const std::vector<LoraAdapterSetting> expected{
        {"a.gguf", 1.0}, {"b.gguf", 1.0}, {"c.gguf", 0.5}, {"d:e.gguf", 2.0}};
    EXPECT_EQ(parsed->settings.loraAdapters, expected);
    EXPECT_TRUE(parsed->unmodelledFlags.empty());
}

TEST(AdapterFlags, RoundTripThroughToServerArgs) {
    ServerSettings settings;
    settings.loraAdapters = {{"a.gguf", 1.0}, {"b.gguf", 0.25}};
    const std::vector<std::string> args = toServerArgs(settings);
    EXPECT_EQ(args, (std::vector<std::string>{"--lora-scaled", "a.gguf:1,b.gguf:0.25"}));
    const auto back = parseServerArgs(args);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->settings, settings);
}

TEST(AdapterFlags, AScaleThatIsNotANumberNamesTheFlagAndTheSetting) {
    for (const char* value : {"a.gguf", "a.gguf:x", ":1"}) {
        const auto bad = parseServerArgs({"--lora-scaled", value});
        ASSERT_FALSE(bad.ok()) << value;
        EXPECT_EQ(bad.error().code, "args.bad-value");
        EXPECT_EQ(bad.error().settings, std::vector<Setting>{Setting::LoraAdapters});
        EXPECT_EQ(bad.error().flag, "--lora-scaled");
    }
}

} // namespace
} // namespace llamafit

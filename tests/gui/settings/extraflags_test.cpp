// The extra-flags field: shell-like splitting, memory flags applied to the settings, the rest
// passed through, errors named.
#include "ui/settings/extraflags.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using Words = std::vector<std::string>;

TEST(SplitShellWords, QuotesAndEscapesLikeAShell) {
    const Result<Words> words = splitShellWords(
        R"(  -t 8 --alias "my model" -ot 'blk\.[0-9]+\.ffn_.*_exps=CPU' a\ b "say \"hi\"" '' )");
    ASSERT_TRUE(words.ok()) << words.error().message;
    EXPECT_EQ(*words, (Words{"-t", "8", "--alias", "my model", "-ot", R"(blk\.[0-9]+\.ffn_.*_exps=CPU)",
                             "a b", "say \"hi\"", ""}));
    EXPECT_EQ(*splitShellWords(""), Words{});
    EXPECT_EQ(*splitShellWords("x'y z'w"), Words{"xy zw"});
}

TEST(SplitShellWords, UnclosedQuoteAndTrailingBackslashAreErrors) {
    const Result<Words> open = splitShellWords("-t 'x");
    ASSERT_FALSE(open.ok());
    EXPECT_EQ(open.error().code, "flags.unterminated-quote");
    EXPECT_NE(open.error().message.find("column 4"), std::string::npos) << open.error().message;
    EXPECT_EQ(splitShellWords("-t \"x").error().code, "flags.unterminated-quote");
    EXPECT_EQ(splitShellWords("-t 8\\").error().code, "flags.trailing-backslash");
}

TEST(ApplyExtraFlags, MemoryFlagsChangeTheSettingsAndTheRestPassThrough) {
    ServerSettings base;
    base.contextTokens = 4096;
    base.cacheTypeK = GgmlType::Q8_0;
    const Result<ExtraFlags> flags = applyExtraFlags(
        base, {"-t", "8", "-ot", "exps=CPU", "--alias", "x", "-c", "8192", "-nkvo", "--port=18080"});
    ASSERT_TRUE(flags.ok()) << flags.error().message;
    ServerSettings expected = base;
    expected.contextTokens = 8192;
    expected.tensorOverrides = {{"exps", "CPU"}};
    expected.kvOffload = false;
    EXPECT_EQ(flags->settings, expected);
    EXPECT_EQ(flags->memoryFlags, (Words{"-ot exps=CPU", "-c 8192", "-nkvo"}));
    EXPECT_EQ(flags->passThrough, (Words{"-t", "8", "--alias", "x", "--port=18080"}));
}

TEST(ApplyExtraFlags, AFlagNamingTheDefaultValueStillOverridesTheBase) {
    ServerSettings base;
    base.flashAttention = FlashAttention::On;
    base.tensorOverrides = {{"old", "CPU"}};
    const Result<ExtraFlags> flags = applyExtraFlags(base, {"-fa", "auto", "-ot", "new=CPU"});
    ASSERT_TRUE(flags.ok()) << flags.error().message;
    EXPECT_EQ(flags->settings.flashAttention, FlashAttention::Auto);
    EXPECT_EQ(flags->settings.tensorOverrides, (std::vector<TensorOverride>{{"new", "CPU"}})); // replaced
    EXPECT_TRUE(flags->passThrough.empty());
}

TEST(ApplyExtraFlags, ErrorsNameTheFlag) {
    const Result<ExtraFlags> unknown = applyExtraFlags({}, {"--no-such-flag"});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, "args.unknown-flag");
    EXPECT_NE(unknown.error().message.find("--no-such-flag"), std::string::npos);
    EXPECT_EQ(applyExtraFlags({}, {"-t"}).error().code, "args.missing-value");
    EXPECT_EQ(applyExtraFlags({}, {"-m", "x.gguf"}).error().code, "flags.not-here");
    EXPECT_EQ(applyExtraFlags({}, {"--gpu", "CUDA0=8192"}).error().code, "flags.not-here");
    const Result<ExtraFlags> rpc = applyExtraFlags({}, {"--rpc", "127.0.0.1:50052"});
    ASSERT_FALSE(rpc.ok());
    EXPECT_EQ(rpc.error().code, "flags.not-here");
    EXPECT_NE(rpc.error().message.find("Cluster dock"), std::string::npos) << rpc.error().message;
}

} // namespace
} // namespace llamafit

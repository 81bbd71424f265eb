// compileTensorPattern: llama.cpp's syntax, named errors, and the nested-repetition guard.
#include "core/sizing/tensorpattern.h"

#include <gtest/gtest.h>

#include <string>

namespace llamafit {
namespace {

TEST(TensorPattern, MatchesAsRegexSearchDoes) {
    auto pattern = compileTensorPattern(R"(blk\.(1[0-9]|2[0-9])\.ffn_.*_exps)");
    ASSERT_TRUE(pattern.ok()) << pattern.error().message;
    EXPECT_TRUE(std::regex_search("blk.12.ffn_up_exps.weight", *pattern));
    EXPECT_FALSE(std::regex_search("blk.2.ffn_up_exps.weight", *pattern));
    EXPECT_FALSE(std::regex_search("blk.12.attn_q.weight", *pattern));
}

TEST(TensorPattern, AnInvalidRegexIsABadValue) {
    auto pattern = compileTensorPattern("blk.(");
    ASSERT_FALSE(pattern.ok());
    EXPECT_EQ(pattern.error().code, "settings.bad-value");
    EXPECT_EQ(pattern.error().settings, std::vector<Setting>{Setting::TensorOverrides});
}

TEST(TensorPattern, NestedRepetitionOfABroadAtomIsTooExpensive) {
    for (const std::string text :
         {"(.*.*)*Q", "(.+)+x", R"((\w+)*=)", "([a-z]*)+", "(a|(.*)){2,}", "((.*))*"}) {
        SCOPED_TRACE(text);
        EXPECT_TRUE(nestsUnboundedRepetition(text));
        auto pattern = compileTensorPattern(text);
        ASSERT_FALSE(pattern.ok());
        EXPECT_EQ(pattern.error().code, "settings.pattern-too-expensive");
    }
}

TEST(TensorPattern, CommonOverridePatternsAreAccepted) {
    for (const std::string text : {"exps", R"(\.ffn_(up|down|gate)_exps\.)", R"(blk\.\d+\.ffn_.*_exps)",
                                   R"((blk\.\d+\.)*attn)", "(.*)?x", "(.*){2}", R"([.*]+(x)*)", "a(\\.*)b"}) {
        SCOPED_TRACE(text);
        EXPECT_FALSE(nestsUnboundedRepetition(text));
        EXPECT_TRUE(compileTensorPattern(text).ok());
    }
}

// The polynomial executor answers at once where a backtracking one would take exponential time
// (nestsUnboundedRepetition refuses this pattern; the matcher is the second line of defence).
#if defined(__GLIBCXX__)
TEST(TensorPattern, MatchingNeverBacktracksExponentially) {
    std::regex compiled("(.*.*)*Q", std::regex::ECMAScript | std::regex_constants::__polynomial);
    EXPECT_FALSE(std::regex_search(std::string(200, 'a'), compiled));
}
#endif

} // namespace
} // namespace llamafit

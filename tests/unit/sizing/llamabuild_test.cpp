// The build -> generation boundaries and the --llama-build spelling (core/sizing/llamabuild.h).

#include "core/sizing/llamabuild.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(LlamaBuild, EachGenerationStartsAtTheBuildOfItsPullRequest) {
    EXPECT_EQ(generationOfBuild(7773), LlamaGeneration::BeforeInputSelect);
    EXPECT_EQ(generationOfBuild(7774), LlamaGeneration::BeforeJune2026);
    // The seed article's build.
    EXPECT_EQ(generationOfBuild(8183), LlamaGeneration::BeforeJune2026);
    EXPECT_EQ(generationOfBuild(9409), LlamaGeneration::BeforeJune2026);
    EXPECT_EQ(generationOfBuild(9410), LlamaGeneration::BeforeMixedInput);
    EXPECT_EQ(generationOfBuild(11151), LlamaGeneration::BeforeMixedInput);
    EXPECT_EQ(generationOfBuild(kReferenceLlamaBuild), LlamaGeneration::Current);
    EXPECT_EQ(generationOfBuild(20000), LlamaGeneration::Current);
}

TEST(LlamaBuild, TakesTheNumberWithOrWithoutItsB) {
    EXPECT_EQ(parseLlamaBuild("b11669").value(), 11669u);
    EXPECT_EQ(parseLlamaBuild("8183").value(), 8183u);
    for (const char* bad : {"", "b", "0", "b-3", "11669x", "0.7.0", "99999999999"}) {
        const Result<std::uint32_t> parsed = parseLlamaBuild(bad);
        ASSERT_FALSE(parsed) << bad;
        EXPECT_EQ(parsed.error().code, "settings.bad-value") << bad;
    }
}

TEST(LlamaBuild, NamesTheBuildItSizes) {
    EXPECT_EQ(sizedForText(11669), "b11669");
    EXPECT_EQ(sizedForText(8183), "b8183");
}

} // namespace
} // namespace llamafit

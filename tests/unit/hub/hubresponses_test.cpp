// The Hub's answers parsed, and hostile answers refused with a named error.

#include "core/hub/hubresponses.h"

#include <gtest/gtest.h>

#include <map>

namespace llamafit {
namespace {

const std::string kSha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(HubResponses, ParsesASearchWithTheGgufExpansion) {
    const auto models = parseModelSearch(R"([
        {"id":"unsloth/Qwen3-8B-GGUF","downloads":123456,"likes":42,"gated":false,
         "gguf":{"total":8190735360,"architecture":"qwen3","context_length":40960}},
        {"modelId":"meta-llama/Llama-3.1-8B-GGUF","gated":"manual"},
        {"id":"org/no-gguf","downloads":-3}
    ])");
    ASSERT_TRUE(models.ok()) << models.error().message;
    ASSERT_EQ(models->size(), 3U);
    EXPECT_EQ((*models)[0].id, "unsloth/Qwen3-8B-GGUF");
    EXPECT_EQ((*models)[0].downloads, 123456U);
    EXPECT_EQ((*models)[0].parameters, 8190735360U);
    EXPECT_EQ((*models)[0].architecture, "qwen3");
    EXPECT_EQ((*models)[0].contextLength, 40960U);
    EXPECT_FALSE((*models)[0].gated);
    EXPECT_EQ((*models)[1].id, "meta-llama/Llama-3.1-8B-GGUF");
    EXPECT_TRUE((*models)[1].gated);
    EXPECT_EQ((*models)[2].downloads, 0U); // a negative count is not taken
}

TEST(HubResponses, RefusesASearchThatIsNotOne) {
    for (const char* answer :
         {"", "{", "{\"error\":\"x\"}", "[1]", R"([{"id":"../../etc"}])", R"([{"id":"a/b/c"}])"}) {
        const auto models = parseModelSearch(answer);
        ASSERT_FALSE(models.ok()) << answer;
        EXPECT_EQ(models.error().code, "hub.bad-response") << answer;
    }
}

TEST(HubResponses, RepoIdsFollowTheHubsRule) {
    EXPECT_TRUE(isValidRepoId("unsloth/Qwen3-8B-GGUF"));
    EXPECT_TRUE(isValidRepoId("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"));
    EXPECT_TRUE(isValidRepoId("a/b.c_d"));
    EXPECT_FALSE(isValidRepoId("noslash"));
    EXPECT_FALSE(isValidRepoId("a/b/c"));
    EXPECT_FALSE(isValidRepoId("a/../b"));
    EXPECT_FALSE(isValidRepoId("a/b--c"));
    EXPECT_FALSE(isValidRepoId("a/.hidden"));
    EXPECT_FALSE(isValidRepoId("a/b c"));
    EXPECT_FALSE(isValidRepoId("a/" + std::string(97, 'x')));
}

TEST(HubResponses, ReadsTheBranchCommit) {
    const std::string refs =
        R"({"branches":[{"name":"dev","targetCommit":"1111111111111111111111111111111111111111"},
        {"name":"main","targetCommit":"ABCDEFABCDEFABCDEFABCDEFABCDEFABCDEFABCD"}],"tags":[],"converts":[]})";
    EXPECT_EQ(*parseBranchCommit(refs, "main"), "abcdefabcdefabcdefabcdefabcdefabcdefabcd");
    EXPECT_EQ(parseBranchCommit(refs, "nope").error().code, "hub.no-branch");
    EXPECT_EQ(
        parseBranchCommit(R"({"branches":[{"name":"main","targetCommit":"../x"}]})", "main").error().code,
        "hub.bad-response");
    EXPECT_EQ(parseBranchCommit("[]", "main").error().code, "hub.bad-response");
}

TEST(HubResponses, ReadsTheTreeWithSizesAndHashes) {
    const std::string tree = R"([
        {"type":"directory","oid":"d","size":0,"path":"BF16"},
        {"type":"file","oid":"aa","size":1519,"path":"README.md"},
        {"type":"file","oid":"bb","size":5000000000,"path":"BF16/m-BF16-00001-of-00002.gguf",
         "lfs":{"oid":")" + kSha +
                             R"(","size":5000000000,"pointerSize":135}}
    ])";
    const auto files = parseRepoTree(tree);
    ASSERT_TRUE(files.ok()) << files.error().message;
    ASSERT_EQ(files->size(), 2U);
    EXPECT_EQ((*files)[0], (HubRepoFile{"README.md", 1519, "", "aa"}));
    EXPECT_EQ((*files)[1], (HubRepoFile{"BF16/m-BF16-00001-of-00002.gguf", 5000000000ULL, kSha, "bb"}));
}

TEST(HubResponses, RefusesATreeWhosePathsCouldLeaveTheCache) {
    const std::vector<std::string> paths{
        "../evil.gguf",   "/etc/passwd", "a/../../b.gguf", "a\\\\b.gguf", "C:x.gguf",
        "a//b.gguf",      "a/./b.gguf",  "bad\xff.gguf",   "nl\n.gguf",   "",
        "ctl\\u0001.gguf"};
    for (const std::string& path : paths) {
        const std::string tree = R"([{"type":"file","oid":"x","size":1,"path":")" + path + R"("}])";
        const auto files = parseRepoTree(tree);
        ASSERT_FALSE(files.ok()) << path;
        EXPECT_EQ(files.error().code, "hub.bad-response") << path;
    }
    EXPECT_TRUE(isSafeRepoPath("日本語/モデル-Q4_K_M.gguf"));
    EXPECT_FALSE(isSafeRepoPath("bad\xff.gguf"));
    EXPECT_FALSE(isSafeRepoPath("overlong\xc0\xaf.gguf")); // "/" spelled in two bytes
    EXPECT_FALSE(isSafeRepoPath("trailing/"));
    EXPECT_FALSE(isSafeRepoPath(std::string(1025, 'a')));
}

TEST(HubResponses, RefusesATreeWithoutSizesOrWithABadHash) {
    EXPECT_FALSE(parseRepoTree(R"([{"type":"file","path":"a.gguf"}])").ok());
    EXPECT_FALSE(
        parseRepoTree(R"([{"type":"file","path":"a.gguf","size":1,"lfs":{"oid":"abc","size":1}}])").ok());
    EXPECT_FALSE(parseRepoTree(R"([{"type":"file","path":"a.gguf","size":1,"lfs":{"oid":")" + kSha +
                               R"(","size":2}}])")
                     .ok());
}

TEST(HubResponses, ReadsTheMetadataOffTheRedirect) {
    const std::map<std::string, std::string> headers{{"X-Repo-Commit", "ABCDEF"},
                                                     {"X-Linked-Etag", "\"" + kSha + "\""},
                                                     {"X-Linked-Size", "123456789"},
                                                     {"Content-Length", "1089"},
                                                     {"Location", "https://cdn.example/blob?Expires=1"}};
    const auto lookup = [&](std::string_view name) -> std::optional<std::string> {
        const auto found = headers.find(std::string(name));
        return found == headers.end() ? std::nullopt : std::optional<std::string>(found->second);
    };
    const auto resolved = parseResolveHeaders(lookup);
    ASSERT_TRUE(resolved.ok());
    EXPECT_EQ(resolved->commit, "abcdef");
    EXPECT_EQ(resolved->sha256, kSha);
    EXPECT_EQ(resolved->size, 123456789U); // X-Linked-Size, not the redirect's own length
    EXPECT_EQ(resolved->location, "https://cdn.example/blob?Expires=1");

    const auto badEtag = [&](std::string_view name) -> std::optional<std::string> {
        return name == "X-Linked-Etag" ? std::optional<std::string>("\"1700000000-1234\"") : std::nullopt;
    };
    EXPECT_EQ(parseResolveHeaders(badEtag).error().code, "hub.bad-response");
    const auto badSize = [&](std::string_view name) -> std::optional<std::string> {
        return name == "X-Linked-Size" ? std::optional<std::string>("12x") : std::nullopt;
    };
    EXPECT_EQ(parseResolveHeaders(badSize).error().code, "hub.bad-response");
}

TEST(HubResponses, FollowsLinkNextAndReadsRateLimits) {
    EXPECT_EQ(nextPageUrl(R"(<https://huggingface.co/api/models?cursor=abc>; rel="next")"),
              "https://huggingface.co/api/models?cursor=abc");
    EXPECT_EQ(nextPageUrl(R"(<https://h/p1>; rel="prev", <https://h/p3>; rel="next")"), "https://h/p3");
    EXPECT_EQ(nextPageUrl(R"(<https://h/p1>; rel="prev")"), std::nullopt);
    EXPECT_EQ(nextPageUrl("garbage"), std::nullopt);
    EXPECT_EQ(rateLimitResetSeconds(R"("api";r=0;t=89)"), 89U);
    EXPECT_EQ(rateLimitResetSeconds(R"("resolvers"; r=10; t=5)"), 5U);
    EXPECT_EQ(rateLimitResetSeconds(R"("api";r=0)"), std::nullopt);
    EXPECT_EQ(rateLimitResetSeconds(R"("api";t=-1)"), std::nullopt);
    EXPECT_EQ(rateLimitResetSeconds(R"("api";t=99999999999)"), std::nullopt);
}

} // namespace
} // namespace llamafit

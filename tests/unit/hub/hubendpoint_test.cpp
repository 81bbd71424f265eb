// The Hub's endpoint, URLs and token, and which hosts may see the token.

#include "core/hub/hubendpoint.h"

#include "tests/support/environmentof.h"

#include <gtest/gtest.h>

#include <map>

namespace llamafit {
namespace {

using test::environmentOf;

TEST(HubEndpoint, MirrorsFollowLlamaCppsOrder) {
    EXPECT_EQ(hubEndpoint(environmentOf({})), "https://huggingface.co");
    EXPECT_EQ(hubEndpoint(environmentOf({{"HF_ENDPOINT", "https://hf-mirror.com/"}})),
              "https://hf-mirror.com");
    EXPECT_EQ(hubEndpoint(environmentOf(
                  {{"HF_ENDPOINT", "https://hf-mirror.com"}, {"MODEL_ENDPOINT", "http://127.0.0.1:18080/"}})),
              "http://127.0.0.1:18080");
    EXPECT_EQ(hubEndpoint(environmentOf({{"MODEL_ENDPOINT", "  "}, {"HF_ENDPOINT", "ftp://x"}})),
              "https://huggingface.co");
}

TEST(HubEndpoint, TheTokenStaysOnTheEndpointsOrigin) {
    const std::string hub = "https://huggingface.co";
    EXPECT_TRUE(mayCarryToken("https://huggingface.co/api/models/a/b/refs", hub));
    EXPECT_TRUE(mayCarryToken("https://HuggingFace.co:443/a/b/resolve/main/x.gguf", hub));
    EXPECT_FALSE(mayCarryToken("https://cas-bridge.xethub.hf.co/xet-bridge-us/abc?Expires=1", hub));
    EXPECT_FALSE(mayCarryToken("https://us.aws.cdn.hf.co/x", hub));
    EXPECT_FALSE(mayCarryToken("http://huggingface.co/a", hub));              // another scheme
    EXPECT_FALSE(mayCarryToken("https://huggingface.co:8443/a", hub));        // another port
    EXPECT_FALSE(mayCarryToken("https://huggingface.co@evil.example/", hub)); // user info is not the host
    EXPECT_FALSE(mayCarryToken("https://huggingface.co.evil.example/", hub));
    EXPECT_FALSE(mayCarryToken("/relative", hub));
    EXPECT_TRUE(mayCarryToken("http://127.0.0.1:18080/api/x", "http://127.0.0.1:18080"));
    EXPECT_FALSE(mayCarryToken("http://127.0.0.2:18080/cdn/x", "http://127.0.0.1:18080"));
    EXPECT_EQ(urlOrigin("http://[::1]:8080/x"), "http://[::1]:8080");
    EXPECT_EQ(urlOrigin("https://h:x/"), "");
}

TEST(HubEndpoint, UrlsAreEncoded) {
    const std::string hub = "https://huggingface.co";
    EXPECT_EQ(hubRefsUrl(hub, "unsloth/Qwen3-8B-GGUF"),
              "https://huggingface.co/api/models/unsloth/Qwen3-8B-GGUF/refs");
    EXPECT_EQ(hubTreeUrl(hub, "a/b", "c0ffee"),
              "https://huggingface.co/api/models/a/b/tree/c0ffee?recursive=true");
    EXPECT_EQ(hubResolveUrl(hub, "a/b", "main", "BF16/m x#1.gguf"),
              "https://huggingface.co/a/b/resolve/main/BF16/m%20x%231.gguf");
    EXPECT_EQ(hubSearchUrl(hub, "qwen 3&x=1", 20),
              "https://huggingface.co/api/models?search=qwen%203%26x%3D1&filter=gguf&sort=downloads&limit=20"
              "&expand%5B%5D=gguf&expand%5B%5D=gated&expand%5B%5D=downloads&expand%5B%5D=likes");
    EXPECT_EQ(percentEncode("日"), "%E6%97%A5");
}

TEST(HubEndpoint, TokensComeInHuggingfaceHubsOrder) {
    std::map<std::string, std::string> files{{"/home/u/.cache/huggingface/token", "hf_home_default\n"},
                                             {"/hf/token", "  hf_from_hf_home  \n"},
                                             {"/custom/token", "hf_from_token_path"}};
    const TextFileReader read = [&](const std::string& path) -> std::optional<std::string> {
        const auto found = files.find(path);
        return found == files.end() ? std::nullopt : std::optional<std::string>(found->second);
    };
    EXPECT_EQ(hubToken(environmentOf({{"HF_TOKEN", "hf_env"}, {"HUGGING_FACE_HUB_TOKEN", "hf_old"}}),
                       "/home/u", read),
              "hf_env");
    EXPECT_EQ(hubToken(environmentOf({{"HUGGING_FACE_HUB_TOKEN", "hf_old"}}), "/home/u", read), "hf_old");
    EXPECT_EQ(
        hubToken(environmentOf({{"HF_TOKEN_PATH", "/custom/token"}, {"HF_HOME", "/hf"}}), "/home/u", read),
        "hf_from_token_path");
    EXPECT_EQ(hubToken(environmentOf({{"HF_HOME", "/hf"}}), "/home/u", read), "hf_from_hf_home");
    EXPECT_EQ(hubToken(environmentOf({}), "/home/u", read), "hf_home_default");
    EXPECT_EQ(hubToken(environmentOf({}), "/nobody", read), std::nullopt);
    files["/two/token"] = "hf_a\nhf_b";
    EXPECT_EQ(hubToken(environmentOf({{"HF_TOKEN_PATH", "/two/token"}}), "/home/u", read), std::nullopt);
}

} // namespace
} // namespace llamafit

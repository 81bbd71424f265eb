#include "core/server/exposure.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using Words = std::vector<std::string>;

TEST(Exposure, LoopbackAddressesAndSocketsReachNoOtherMachine) {
    for (const char* host :
         {"127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "::1", "[::1]", "/run/llama.sock"}) {
        EXPECT_TRUE(isLoopbackHost(host)) << host;
    }
    for (const char* host : {"0.0.0.0", "::", "192.168.1.20", "128.0.0.1", "127.0.0.256", "127.0.0",
                             "127.0.0.1.5", "example.org", "", "127.0.0.1x"}) {
        EXPECT_FALSE(isLoopbackHost(host)) << host;
    }
}

TEST(Exposure, TheHostAmongTheWordsIsTheOneListenedOn) {
    EXPECT_EQ(listeningHost("", {}), "127.0.0.1");
    EXPECT_EQ(listeningHost("10.0.0.2", {}), "10.0.0.2");
    EXPECT_EQ(listeningHost("127.0.0.1", Words{"-t", "4", "--host", "0.0.0.0"}), "0.0.0.0");
    EXPECT_EQ(listeningHost("127.0.0.1", Words{"--host=192.168.0.7"}), "192.168.0.7");
}

TEST(Exposure, ANetworkAddressNotChosenIsRefusedAndNamed) {
    const Result<Words> refused = guardExposure("127.0.0.1", Words{"--host", "0.0.0.0"}, {});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, "launch.exposure-not-chosen");
    EXPECT_NE(refused.error().message.find("0.0.0.0"), std::string::npos);
    EXPECT_FALSE(guardExposure("192.168.1.4", {}, {}));
}

TEST(Exposure, LoopbackWithoutAChoiceRunsAsTyped) {
    const Result<Words> words = guardExposure("127.0.0.1", Words{"-t", "4"}, {});
    ASSERT_TRUE(words);
    EXPECT_EQ(*words, (Words{"-t", "4"}));
}

TEST(Exposure, AChosenExposureAlwaysCarriesTheKeyFile) {
    const NetworkExposure exposure{true, "/home/u/.local/share/llamafit/api-key"};
    const Result<Words> network = guardExposure("0.0.0.0", {}, exposure);
    ASSERT_TRUE(network);
    EXPECT_EQ(*network, (Words{"--api-key-file", "/home/u/.local/share/llamafit/api-key"}));
    // Chosen on loopback too (a port forward or a proxy still reaches it).
    ASSERT_TRUE(guardExposure("127.0.0.1", {}, exposure));
    EXPECT_EQ(guardExposure("127.0.0.1", {}, exposure)->size(), 2U);
}

TEST(Exposure, TheUsersOwnKeyIsKeptAndNotDoubled) {
    const NetworkExposure exposure{true, "/k"};
    const Result<Words> withKey = guardExposure("0.0.0.0", Words{"--api-key", "secret"}, exposure);
    ASSERT_TRUE(withKey);
    EXPECT_EQ(*withKey, (Words{"--api-key", "secret"}));
    const Result<Words> withFile = guardExposure("0.0.0.0", Words{"--api-key-file=/mine"}, exposure);
    ASSERT_TRUE(withFile);
    EXPECT_EQ(withFile->size(), 1U);
}

TEST(Exposure, AChoiceWithoutAKeyFileIsAnError) {
    const Result<Words> words = guardExposure("0.0.0.0", {}, NetworkExposure{true, ""});
    ASSERT_FALSE(words);
    EXPECT_EQ(words.error().code, "launch.api-key-file-missing");
}

TEST(Exposure, TheMonitorFindsTheKeyWhereverItWasGiven) {
    EXPECT_EQ(apiKeySource(Words{"-t", "4"}), std::nullopt);
    EXPECT_EQ(apiKeySource(Words{"--api-key", "abc"}), (ApiKeySource{"abc", ""}));
    EXPECT_EQ(apiKeySource(Words{"--api-key-file", "/k"}), (ApiKeySource{"", "/k"}));
    // The file wins when both are given: it is what LlamaFit adds.
    EXPECT_EQ(apiKeySource(Words{"--api-key", "abc", "--api-key-file", "/k"}), (ApiKeySource{"", "/k"}));
    EXPECT_EQ(apiKeyFromFileContent("llamafit-0123\r\nsecond\n"), "llamafit-0123");
    EXPECT_EQ(apiKeyFromFileContent("only"), "only");
}

TEST(Exposure, AWildcardBindIsReachedOnLoopback) {
    EXPECT_EQ(reachableAddress("0.0.0.0"), "127.0.0.1");
    EXPECT_EQ(reachableAddress("::"), "::1");
    EXPECT_EQ(reachableAddress(""), "127.0.0.1");
    EXPECT_EQ(reachableAddress("192.168.1.20"), "192.168.1.20");
}

} // namespace
} // namespace llamafit

// The default library roots: the HF hub cache's environment precedence (llama.cpp
// common/hf-cache.cpp), the legacy llama.cpp cache, LM Studio, Ollama, per OS.

#include "core/library/modellocations.h"

#include "tests/support/environmentof.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace llamafit {
namespace {

using test::environmentOf;

std::string hubOf(std::map<std::string, std::string> variables) {
    return huggingFaceHubCacheDirectory(environmentOf(std::move(variables)), "/home/u", OsKind::Linux);
}

TEST(ModelLocations, HubCacheFollowsLlamaCppPrecedence) {
    std::map<std::string, std::string> all{{"LLAMA_CACHE", "/a"},
                                           {"HF_HUB_CACHE", "/b"},
                                           {"HUGGINGFACE_HUB_CACHE", "/c"},
                                           {"HF_HOME", "/d"},
                                           {"XDG_CACHE_HOME", "/e"}};
    EXPECT_EQ(hubOf(all), "/a");
    all.erase("LLAMA_CACHE");
    EXPECT_EQ(hubOf(all), "/b");
    all.erase("HF_HUB_CACHE");
    EXPECT_EQ(hubOf(all), "/c");
    all.erase("HUGGINGFACE_HUB_CACHE");
    EXPECT_EQ(hubOf(all), "/d/hub");
    all.erase("HF_HOME");
    EXPECT_EQ(hubOf(all), "/e/huggingface/hub");
    all.erase("XDG_CACHE_HOME");
    EXPECT_EQ(hubOf(all), "/home/u/.cache/huggingface/hub");
}

TEST(ModelLocations, EmptyVariableCountsAsUnset) {
    EXPECT_EQ(hubOf({{"LLAMA_CACHE", ""}, {"HF_HOME", "/d"}}), "/d/hub");
}

TEST(ModelLocations, LinuxDefaultsInScanOrder) {
    const auto roots = defaultLibraryRoots(environmentOf({}), "/home/u", OsKind::Linux);
    const LibraryRoots expected{
        {"/home/u/.cache/huggingface/hub", LibraryRootKind::HfHubCache, "Hugging Face cache"},
        {"/home/u/.cache/llama.cpp", LibraryRootKind::LegacyLlamaCppCache, "llama.cpp cache"},
        {"/home/u/.lmstudio/models", LibraryRootKind::LmStudio, "LM Studio"},
        {"/home/u/.cache/lm-studio/models", LibraryRootKind::LmStudio, "LM Studio"},
        {"/home/u/.ollama/models", LibraryRootKind::Ollama, "Ollama"},
        {"/usr/share/ollama/.ollama/models", LibraryRootKind::Ollama, "Ollama"},
    };
    EXPECT_EQ(roots, expected);
}

TEST(ModelLocations, XdgCacheMovesBothCaches) {
    const auto roots =
        defaultLibraryRoots(environmentOf({{"XDG_CACHE_HOME", "/x"}}), "/home/u", OsKind::Linux);
    ASSERT_GE(roots.size(), 2u);
    EXPECT_EQ(roots[0].path, "/x/huggingface/hub");
    EXPECT_EQ(roots[1].path, "/x/llama.cpp");
}

TEST(ModelLocations, LlamaCacheIsOneRootNotTwo) {
    const auto roots =
        defaultLibraryRoots(environmentOf({{"LLAMA_CACHE", "/models/cache"}}), "/home/u", OsKind::Linux);
    const auto count = std::count_if(roots.begin(), roots.end(),
                                     [](const LibraryRoot& root) { return root.path == "/models/cache"; });
    EXPECT_EQ(count, 1);
    EXPECT_EQ(roots.front().kind, LibraryRootKind::HfHubCache);
}

TEST(ModelLocations, OllamaModelsVariableReplacesTheHomeFolder) {
    const auto roots =
        defaultLibraryRoots(environmentOf({{"OLLAMA_MODELS", "/srv/ollama"}}), "/home/u", OsKind::Linux);
    std::vector<std::string> ollama;
    for (const auto& root : roots) {
        if (root.kind == LibraryRootKind::Ollama) {
            ollama.push_back(root.path);
        }
    }
    EXPECT_EQ(ollama, (std::vector<std::string>{"/srv/ollama", "/usr/share/ollama/.ollama/models"}));
}

// Written from the documentation; no Windows or macOS machine checked these.
TEST(ModelLocations, WindowsVariants) {
    const auto roots = defaultLibraryRoots(environmentOf({{"LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local"}}),
                                           "C:\\Users\\u", OsKind::Windows);
    ASSERT_EQ(roots.size(), 5u);
    EXPECT_EQ(roots[0].path, "C:\\Users\\u\\.cache\\huggingface\\hub");
    EXPECT_EQ(roots[1].path, "C:\\Users\\u\\AppData\\Local\\llama.cpp");
    EXPECT_EQ(roots[2].path, "C:\\Users\\u\\.lmstudio\\models");
    EXPECT_EQ(roots[4].path, "C:\\Users\\u\\.ollama\\models");
}

TEST(ModelLocations, MacOsLegacyCacheIsInLibraryCaches) {
    const auto roots = defaultLibraryRoots(environmentOf({}), "/Users/u", OsKind::MacOs);
    ASSERT_GE(roots.size(), 2u);
    EXPECT_EQ(roots[1].path, "/Users/u/Library/Caches/llama.cpp");
    EXPECT_EQ(roots.back().path, "/Users/u/.ollama/models");
}

} // namespace
} // namespace llamafit

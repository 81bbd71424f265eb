// llama.cpp's release listing parsed, and the build chosen for each OS, CPU and backend.

#include "core/server/llamarelease.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

std::string asset(const std::string& name, bool digest = true) {
    return R"({"name": ")" + name +
           R"(", "size": 1000, "browser_download_url": "https://github.com/ggml-org/llama.cpp/releases/download/b7000/)" +
           name + "\"" + (digest ? R"(, "digest": "sha256:)" + std::string(64, 'a') + "\"" : "") + "}";
}

LlamaRelease release() {
    const std::string json =
        R"({"tag_name": "b7000", "assets": [)" + asset("llama-b7000-bin-ubuntu-x64.tar.gz") + "," +
        asset("llama-b7000-bin-ubuntu-vulkan-x64.tar.gz") + "," +
        asset("llama-b7000-bin-ubuntu-vulkan-arm64.tar.gz") + "," +
        asset("llama-b7000-bin-macos-arm64.tar.gz") + "," + asset("llama-b7000-bin-win-cpu-x64.zip") + "," +
        asset("llama-b7000-bin-win-vulkan-x64.zip") + "," +
        asset("llama-b7000-bin-win-hip-radeon-x64.zip", false) + "," +
        asset("llama-b7000-bin-win-cuda-13.1-x64.zip") + "," +
        asset("cudart-llama-bin-win-cuda-13.1-x64.zip") + "," +
        asset("llama-b7000-bin-win-cuda-12.4-x64.zip") + "," +
        asset("cudart-llama-bin-win-cuda-12.4-x64.zip") + "," + asset("llama-b7000-xcframework.zip") + "]}";
    auto parsed = parseLlamaRelease(json);
    EXPECT_TRUE(parsed.ok()) << parsed.error().message;
    return *parsed;
}

TEST(LlamaRelease, ParsesTheTagAssetsAndDigests) {
    const LlamaRelease parsed = release();
    EXPECT_EQ(parsed.tag, "b7000");
    EXPECT_EQ(parsed.buildNumber, 7000U);
    ASSERT_EQ(parsed.assets.size(), 12U);
    EXPECT_EQ(parsed.assets[0].sha256, std::string(64, 'a'));
    EXPECT_EQ(parsed.assets[6].sha256, ""); // no digest listed
}

TEST(LlamaRelease, ChoosesTheBuildForEachSystem) {
    const LlamaRelease listing = release();
    const auto name = [&](OsKind os, const char* cpu, EngineBackend backend) {
        auto chosen = chooseEngineAssets(listing, os, cpu, backend);
        return chosen ? chosen->archive.name + (chosen->runtime ? " + " + chosen->runtime->name : "")
                      : chosen.error().code;
    };
    EXPECT_EQ(name(OsKind::Linux, "x64", EngineBackend::Cpu), "llama-b7000-bin-ubuntu-x64.tar.gz");
    EXPECT_EQ(name(OsKind::Linux, "x64", EngineBackend::Vulkan), "llama-b7000-bin-ubuntu-vulkan-x64.tar.gz");
    EXPECT_EQ(name(OsKind::Linux, "arm64", EngineBackend::Vulkan),
              "llama-b7000-bin-ubuntu-vulkan-arm64.tar.gz");
    EXPECT_EQ(name(OsKind::Linux, "x64", EngineBackend::Cuda), "release.no-asset");
    EXPECT_EQ(name(OsKind::MacOs, "arm64", EngineBackend::Metal), "llama-b7000-bin-macos-arm64.tar.gz");
    EXPECT_EQ(name(OsKind::Windows, "x64", EngineBackend::Cpu), "llama-b7000-bin-win-cpu-x64.zip");
    EXPECT_EQ(name(OsKind::Windows, "x64", EngineBackend::Vulkan), "llama-b7000-bin-win-vulkan-x64.zip");
    // The oldest CUDA, with its runtime beside it.
    EXPECT_EQ(name(OsKind::Windows, "x64", EngineBackend::Cuda),
              "llama-b7000-bin-win-cuda-12.4-x64.zip + cudart-llama-bin-win-cuda-12.4-x64.zip");
    // Listed without a digest: never chosen.
    EXPECT_EQ(name(OsKind::Windows, "x64", EngineBackend::Hip), "release.no-asset");
}

TEST(LlamaRelease, RefusesAListingThatIsNotOne) {
    for (
        const std::string& bad : std::vector<std::string>{
            std::string("[]"), std::string(R"({"assets": []})"),
            R"({"tag_name": "b1", "assets": [)" + asset("../evil.zip") + "]}",
            std::string(
                R"({"tag_name": "b1", "assets": [{"name": "a.zip", "browser_download_url": "file:///etc/passwd"}]})"),
            std::string(
                R"({"tag_name": "b1", "assets": [{"name": "a.zip", "browser_download_url": "https://x/a.zip", "digest": "md5:abc"}]})")}) {
        const auto parsed = parseLlamaRelease(bad);
        ASSERT_FALSE(parsed.ok()) << bad;
        EXPECT_EQ(parsed.error().code, "release.bad-response") << bad;
    }
    EXPECT_EQ(parseEngineBackend("Vulkan"), EngineBackend::Vulkan);
    EXPECT_EQ(parseEngineBackend("opencl"), std::nullopt);
}

} // namespace
} // namespace llamafit

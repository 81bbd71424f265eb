// Ollama manifests: the model and projector layers, bad manifests, blob paths and names.

#include "core/library/ollamamanifest.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit {
namespace {

const std::string kHex(64, 'f');

TEST(OllamaManifest, FindsModelAndProjectorLayers) {
    const auto manifest = parseOllamaManifest(R"({"layers":[
        {"mediaType":"application/vnd.ollama.image.license","digest":"sha256:)" +
                                              std::string(64, '1') + R"("},
        {"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
                                              kHex + R"("},
        {"mediaType":"application/vnd.ollama.image.projector","digest":"sha256:)" +
                                              std::string(64, '2') + R"("}]})");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    EXPECT_EQ(manifest->modelDigest, "sha256:" + kHex);
    EXPECT_EQ(manifest->projectorDigests, std::vector<std::string>{"sha256:" + std::string(64, '2')});
}

TEST(OllamaManifest, BadManifestsAreNamedErrors) {
    for (const std::string& json :
         {std::string("not json"), std::string("[]"), std::string(R"({"layers":{}})"),
          std::string(R"({"layers":[]})"),
          std::string(R"({"layers":[{"mediaType":"application/vnd.ollama.image.model",)"
                      R"("digest":"sha256:../../etc/passwd"}]})")}) {
        SCOPED_TRACE(json);
        const auto manifest = parseOllamaManifest(json);
        ASSERT_FALSE(manifest.ok());
        EXPECT_EQ(manifest.error().code, "library.bad-manifest");
    }
}

TEST(OllamaManifest, BlobPathsAndNames) {
    // Compared as paths: on Windows the blob path has backslash separators.
    EXPECT_EQ(std::filesystem::path(ollamaBlobPath("/m", "sha256:" + kHex)),
              std::filesystem::path("/m/blobs/sha256-" + kHex));
    EXPECT_EQ(ollamaModelName("registry.ollama.ai", "library", "qwen3", "8b"), "qwen3:8b");
    EXPECT_EQ(ollamaModelName("registry.ollama.ai", "someone", "tool", "latest"), "someone/tool:latest");
    EXPECT_EQ(ollamaModelName("hf.co", "org", "repo", "Q4_K_M"), "hf.co/org/repo:Q4_K_M");
}

} // namespace
} // namespace llamafit

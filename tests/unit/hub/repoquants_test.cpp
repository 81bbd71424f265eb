// A repo's files grouped into the quants llama-server -hf would load, with their projectors.

#include "core/hub/hubcachelayout.h"
#include "core/hub/repoquants.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

HubRepoFile file(std::string path, std::uint64_t size) {
    return {std::move(path), size, "", ""};
}

const RepoQuant* withLabel(const std::vector<RepoQuant>& quants, std::string_view label) {
    const auto found =
        std::find_if(quants.begin(), quants.end(), [&](const RepoQuant& q) { return q.label == label; });
    return found == quants.end() ? nullptr : &*found;
}

// An unsloth-style repo: single files at the root, a split BF16 set in a subfolder with its own
// projector, an incomplete split set, and the sidecars that are not models.
std::vector<HubRepoFile> unslothStyleRepo() {
    return {
        file("README.md", 10),
        file(".gitattributes", 5),
        file("Model-Q4_K_M.gguf", 4000),
        file("Model-UD-Q4_K_XL.gguf", 4200),
        file("Model-Q8_0.gguf", 8000),
        file("Model-IQ2_XXS.gguf", 2000),
        file("mmproj-F16.gguf", 600),
        file("mmproj-Q8_0.gguf", 300),
        file("imatrix_unsloth.gguf", 50),
        file("mtp-Model-Q8_0.gguf", 70),
        file("BF16/Model-BF16-00002-of-00002.gguf", 7000),
        file("BF16/Model-BF16-00001-of-00002.gguf", 9000),
        file("BF16/mmproj-BF16.gguf", 610),
        file("Q6_K/Model-Q6_K-00001-of-00003.gguf", 3000), // shards 2 and 3 missing
        file("Q6_K/Model-Q6_K-00003-of-00003.gguf", 3000),
    };
}

TEST(RepoQuants, GroupsShardsDropsIncompleteSetsAndSidecars) {
    const std::vector<RepoQuant> quants = repoQuants(unslothStyleRepo());
    std::vector<std::string> labels;
    for (const RepoQuant& quant : quants) {
        labels.push_back(quant.label);
    }
    // The Hub's quality order, best first; no Q6_K (incomplete), no imatrix, mtp- or mmproj.
    EXPECT_EQ(labels, (std::vector<std::string>{"BF16", "Q8_0", "UD-Q4_K_XL", "Q4_K_M", "IQ2_XXS"}));

    const RepoQuant* bf16 = withLabel(quants, "BF16");
    ASSERT_NE(bf16, nullptr);
    ASSERT_EQ(bf16->files.size(), 2U);
    EXPECT_EQ(bf16->firstPath(), "BF16/Model-BF16-00001-of-00002.gguf"); // shard 1 first whatever the listing
    EXPECT_EQ(bf16->modelBytes, 16000U);
}

TEST(RepoQuants, PairsTheProjectorAsLlamaCppDoes) {
    const std::vector<RepoQuant> quants = repoQuants(unslothStyleRepo());
    // Same folder first: the BF16 set takes its folder's projector.
    EXPECT_EQ(withLabel(quants, "BF16")->projector->path, "BF16/mmproj-BF16.gguf");
    // Then the closest bit width: Q4_K_M (4 bits) takes Q8_0 (8) over F16 (16), as llama-server did.
    EXPECT_EQ(withLabel(quants, "Q4_K_M")->projector->path, "mmproj-Q8_0.gguf");
    EXPECT_EQ(withLabel(quants, "Q8_0")->projector->path, "mmproj-Q8_0.gguf");
    const std::vector<RepoQuant> textOnly = repoQuants({file("a-Q4_K_M.gguf", 1)});
    EXPECT_FALSE(textOnly.front().projector.has_value());
}

TEST(RepoQuants, ModelFilesAreLlamaCppsModelFiles) {
    EXPECT_TRUE(isModelGgufPath("Model-Q4_K_M.gguf"));
    EXPECT_TRUE(isModelGgufPath("sub/Model.GGUF"));
    EXPECT_TRUE(isModelGgufPath("MMPROJ-is-case-sensitive.gguf"));
    EXPECT_TRUE(isModelGgufPath("mmproj/model-Q4_K_M.gguf")); // the folder's name does not count
    EXPECT_FALSE(isModelGgufPath("mmproj-F16.gguf"));
    EXPECT_FALSE(isModelGgufPath("imatrix.gguf"));
    EXPECT_FALSE(isModelGgufPath("mtp-head.gguf"));
    EXPECT_FALSE(isModelGgufPath("eagle3-Llama.gguf"));
    EXPECT_FALSE(isModelGgufPath("model.safetensors"));
}

TEST(RepoQuants, TagsNameQuantsWithOrWithoutTheDynamicPrefix) {
    const std::vector<RepoQuant> quants = repoQuants(unslothStyleRepo());
    EXPECT_EQ(quantForTag(quants, "q4_k_m")->label, "Q4_K_M");
    EXPECT_EQ(quantForTag(quants, "UD-Q4_K_XL")->label, "UD-Q4_K_XL");
    EXPECT_EQ(quantForTag(quants, "Q4_K_XL")->label, "UD-Q4_K_XL"); // llama.cpp lists it so
    EXPECT_EQ(quantForTag(quants, "Q3_K_M"), nullptr);
    EXPECT_EQ(quantForTag(quants, "")->label, "Q4_K_M"); // llama.cpp's default
    EXPECT_EQ(quantForTag(repoQuants({file("x-Q6_K.gguf", 1), file("x-Q2_K.gguf", 1)}), "")->label, "Q6_K");
    EXPECT_EQ(quantForTag({}, ""), nullptr);
}

TEST(HubCacheLayout, PathsAreTheSharedCachesLayout) {
    const HubCacheLayout layout{"/home/u/.cache/huggingface/hub", "unsloth/Qwen3-8B-GGUF"};
    const std::string sha(64, 'a');
    EXPECT_EQ(layout.repoDirectory(), "/home/u/.cache/huggingface/hub/models--unsloth--Qwen3-8B-GGUF");
    EXPECT_EQ(layout.blobPath(sha), layout.repoDirectory() + "/blobs/" + sha);
    EXPECT_EQ(layout.partialBlobPath(sha), layout.repoDirectory() + "/blobs/" + sha + ".downloadInProgress");
    EXPECT_EQ(layout.snapshotPath("c0ffee", "BF16/m.gguf"),
              layout.repoDirectory() + "/snapshots/c0ffee/BF16/m.gguf");
    EXPECT_EQ(layout.refPath("main"), layout.repoDirectory() + "/refs/main");
    EXPECT_EQ(snapshotLinkTarget("m.gguf", sha), "../../blobs/" + sha);
    EXPECT_EQ(snapshotLinkTarget("BF16/m.gguf", sha), "../../../blobs/" + sha);
}

} // namespace
} // namespace llamafit

#pragma once
// Where a Hugging Face download lives in the shared hub cache, so that LlamaFit, llama-server -hf
// and huggingface_hub each find, reuse and finish the others' files (hub-docs
// docs/hub/local-cache.md; llama.cpp b11669 common/hf-cache.cpp and download.cpp):
//
//   <cache>/models--<org>--<name>/blobs/<sha256>                      the content
//   <cache>/models--<org>--<name>/blobs/<sha256>.downloadInProgress   llama.cpp's partial file
//   <cache>/models--<org>--<name>/snapshots/<commit>/<path>           a relative symlink to the
//                                                                     blob (a copy without symlinks)
//   <cache>/models--<org>--<name>/refs/<branch>                       the branch's commit
//
// The cache folder itself is modellocations.h's huggingFaceHubCacheDirectory().
// Pure functions over '/'-separated UTF-8 strings; the caller has checked the repo id
// (isValidRepoId), the path (isSafeRepoPath), the commit and the hash.

#include <string>
#include <string_view>

namespace llamafit {

// "models--unsloth--Qwen3-8B-GGUF".
std::string hubRepoFolderName(std::string_view repoId);

struct HubCacheLayout {
    std::string cacheDirectory; // the hub cache, no trailing '/'
    std::string repoId;

    std::string repoDirectory() const;
    std::string blobPath(std::string_view sha256) const;
    std::string partialBlobPath(std::string_view sha256) const;
    std::string snapshotPath(std::string_view commit, std::string_view repoPath) const;
    std::string refPath(std::string_view branch) const;
};

// The symlink target from snapshots/<commit>/<repoPath> to blobs/<sha256>: "../../blobs/<sha256>",
// one more "../" per folder in repoPath.
std::string snapshotLinkTarget(std::string_view repoPath, std::string_view sha256);

} // namespace llamafit

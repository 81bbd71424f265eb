#pragma once
// Downloads from the Hugging Face Hub into the shared hub cache (core/hub/hubcachelayout.h), the
// way llama.cpp b11669 does (common/download.cpp), so that LlamaFit and `llama-server -hf` each
// finish and reuse the other's files:
//   - the partial file is blobs/<sha256>.downloadInProgress, resumed with Range: bytes=N- on the
//     resolve URL (a fresh redirect each time, so an expired signed CDN URL is resolved again);
//   - a connection that breaks off is resumed where it stopped, a few times;
//   - the whole file's sha256 is checked against the tree's LFS hash before the blob is
//     renamed into place: nothing unverified is ever used; a mismatch deletes the partial
//     (hub.hash-mismatch);
//   - then snapshots/<commit>/<path> is a relative symlink to the blob (a copy where the file
//     system has no symlinks, as on Windows without developer mode) and refs/main the commit;
//   - free disk space is checked before the first byte (hub.disk-full).
// A blob already in the cache with the right size is reused (it was verified when written).
// Thread: the caller's (HubClient's); progress is reported from it.
//
// Error codes: HubClient's, plus hub.no-hash (a file without an LFS sha256: not verifiable, not
// downloaded), hub.hash-mismatch, hub.disk-full, hub.cache-write (the cache folder cannot be
// written), hub.no-quant.

#include "core/common/result.h"
#include "core/hub/hubcachelayout.h"
#include "core/hub/repoquants.h"
#include "core/system/hubclient.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct HubDownloadProgress {
    std::string repoPath;         // the file being downloaded
    std::uint64_t fileBytes = 0;  // its size
    std::uint64_t fileDone = 0;   // bytes of it in the cache (a resumed partial counts)
    std::uint64_t totalBytes = 0; // every file of the request
    std::uint64_t totalDone = 0;
    double bytesPerSecond = 0; // over this run's bytes
};

using HubProgressCallback = std::function<void(const HubDownloadProgress&)>;

// One file, at `commit`; returns its snapshot path.
Result<std::string> downloadHubFile(HubClient& client, const HubCacheLayout& layout,
                                    const std::string& commit, const HubRepoFile& file,
                                    const HubProgressCallback& progress = {});

struct PulledQuant {
    std::string commit;
    std::vector<std::string> modelPaths; // snapshot paths, shard 1 first: what -m is given
    std::optional<std::string> projectorPath;
};

// A quant's files (every shard, and its projector unless `withProjector` is false) at `commit`;
// refs/main is set to `commit` when `branch` is "main".
Result<PulledQuant> pullQuant(HubClient& client, const HubCacheLayout& layout, const std::string& commit,
                              const RepoQuant& quant, bool withProjector = true,
                              const HubProgressCallback& progress = {}, const std::string& branch = "main");

} // namespace llamafit

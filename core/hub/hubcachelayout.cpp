// The hub cache's layout; see hubcachelayout.h.

#include "core/hub/hubcachelayout.h"

#include <algorithm>

namespace llamafit {

std::string hubRepoFolderName(std::string_view repoId) {
    std::string name = "models--";
    for (char c : repoId) {
        if (c == '/') {
            name += "--";
        } else {
            name += c;
        }
    }
    return name;
}

std::string HubCacheLayout::repoDirectory() const {
    return cacheDirectory + "/" + hubRepoFolderName(repoId);
}

std::string HubCacheLayout::blobPath(std::string_view sha256) const {
    return repoDirectory() + "/blobs/" + std::string(sha256);
}

std::string HubCacheLayout::partialBlobPath(std::string_view sha256) const {
    return blobPath(sha256) + ".downloadInProgress";
}

std::string HubCacheLayout::snapshotPath(std::string_view commit, std::string_view repoPath) const {
    return repoDirectory() + "/snapshots/" + std::string(commit) + "/" + std::string(repoPath);
}

std::string HubCacheLayout::refPath(std::string_view branch) const {
    return repoDirectory() + "/refs/" + std::string(branch);
}

std::string snapshotLinkTarget(std::string_view repoPath, std::string_view sha256) {
    const auto folders = static_cast<std::size_t>(std::count(repoPath.begin(), repoPath.end(), '/'));
    std::string target;
    for (std::size_t i = 0; i < folders + 2; ++i) {
        target += "../";
    }
    return target + "blobs/" + std::string(sha256);
}

} // namespace llamafit

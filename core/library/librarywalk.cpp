#include "core/library/librarywalk.h"

#include "core/common/utf8path.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

namespace llamafit {
namespace {

namespace fs = std::filesystem;

bool hasGgufExtension(const fs::path& path) {
    std::string extension = utf8FromPath(path.extension());
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".gguf";
}

Error unreadable(const fs::path& dir, const std::error_code& ec) {
    return makeError("library.unreadable-folder",
                     "cannot read folder " + utf8FromPath(dir) + ": " + ec.message());
}

} // namespace

LibraryWalk walkLibraryRoot(const std::string& root, std::stop_token stop,
                            const std::function<void(std::uint64_t, const std::string&)>& onFolder) {
    LibraryWalk walk;
    std::error_code ec;
    if (!fs::exists(pathFromUtf8(root), ec)) {
        walk.rootMissing = true;
        return walk;
    }
    // Folders are identified by their canonical path (symlinks resolved): a link back to an
    // ancestor, or two links to one folder, lead to a folder already visited and are skipped.
    std::set<fs::path> visited;
    std::vector<fs::path> pending{pathFromUtf8(root)};
    while (!pending.empty()) {
        if (stop.stop_requested()) {
            walk.cancelled = true;
            return walk;
        }
        const fs::path dir = pending.back();
        pending.pop_back();
        const fs::path canonical = fs::canonical(dir, ec);
        if (ec) {
            walk.errors.push_back(unreadable(dir, ec));
            continue;
        }
        if (!visited.insert(canonical).second) {
            continue;
        }
        fs::directory_iterator it(dir, ec);
        if (ec) {
            walk.errors.push_back(unreadable(dir, ec));
            continue;
        }
        LibraryFolder folder{utf8FromPath(dir), {}};
        std::vector<fs::path> subfolders;
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            std::error_code typeError;
            // is_directory / is_regular_file follow symlinks; a dangling link is neither.
            if (it->is_directory(typeError)) {
                subfolders.push_back(it->path());
            } else if (it->is_regular_file(typeError) && hasGgufExtension(it->path())) {
                folder.files.push_back(utf8FromPath(it->path()));
            }
        }
        if (ec) {
            walk.errors.push_back(unreadable(dir, ec));
        }
        // Depth first, children in name order (reverse onto the stack).
        std::sort(subfolders.begin(), subfolders.end());
        pending.insert(pending.end(), subfolders.rbegin(), subfolders.rend());
        if (!folder.files.empty()) {
            std::sort(folder.files.begin(), folder.files.end());
            walk.fileCount += folder.files.size();
            walk.folders.push_back(std::move(folder));
        }
        if (onFolder) {
            onFolder(walk.fileCount, utf8FromPath(dir));
        }
    }
    return walk;
}

} // namespace llamafit

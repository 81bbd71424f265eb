#pragma once
// The walk of one library root: every folder under it (following directory symlinks, as the
// HF cache's snapshot folders need, but never entering a folder twice, so symlink loops end)
// and the candidate GGUF files in each (names ending in ".gguf", any case, that are regular
// files after following symlinks -- HF snapshot files are symlinks into blobs/).
// Used by the library scan (libraryscan.h) on its worker thread. Reads directories only.
//
// Error codes: library.unreadable-folder (a folder that cannot be listed; the walk goes on).

#include "core/common/result.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace llamafit {

struct LibraryFolder {
    std::string path;               // as reached from the root (symlinks not resolved)
    std::vector<std::string> files; // full paths of the candidate .gguf files, sorted
};

struct LibraryWalk {
    std::vector<LibraryFolder> folders; // only folders holding candidates, in walk order
    std::vector<Error> errors;
    std::uint64_t fileCount = 0;
    bool rootMissing = false; // the root does not exist (normal for default roots)
    bool cancelled = false;
};

// Calls `onFolder(filesFoundSoFar, folderPath)` after each folder is listed (progress).
LibraryWalk walkLibraryRoot(const std::string& root, std::stop_token stop = {},
                            const std::function<void(std::uint64_t, const std::string&)>& onFolder = {});

} // namespace llamafit

#pragma once
// scanLibrary(): finds the models under a list of library roots and reads each one's GGUF
// header into a LibraryEntry. Split models ("name-00001-of-00003.gguf") become one entry
// (a missing part is an error on that entry); multimodal projectors (mmproj) are attached to
// the models of their folder (or Ollama manifest) instead of being listed; Ollama models are
// named "model:tag" from their manifests; HF cache files "org/repo (file)"; a file reached
// twice (two roots, two symlinks) is listed once (by canonical path). A file that cannot be
// read becomes an entry carrying the reader's error: nothing stops the scan but cancelling.
//
// Used by LibraryScanner (core/system/libraryscanner.h) on its worker thread, and by tests.
// Runs on the caller's thread; the callbacks are called on it too. Reads headers only
// (readGgufModel), never tensor data. Sizes in bytes.
//
// Progress: files found grows while the roots are walked (done = 0), then done counts the
// files (GGUF candidates and Ollama manifests) handled. Cancelling (the stop token) is checked
// before each folder and each file; a cancelled scan returns what it had found so far.

#include "core/common/result.h"
#include "core/library/libraryentry.h"
#include "core/library/modellocations.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace llamafit {

struct LibraryScanProgress {
    std::uint64_t filesDone = 0;
    std::uint64_t filesFound = 0;
    std::string currentPath;
};

struct LibraryScanCallbacks {
    std::function<void(const LibraryScanProgress&)> progress;
    std::function<void(std::vector<LibraryEntry>)> entries; // one batch per folder / manifest
};

struct LibraryScanResult {
    std::vector<LibraryEntry> entries; // every entry, in the order the batches were sent
    std::vector<Error> errors;         // folders that could not be read (library.unreadable-folder)
    std::uint64_t filesFound = 0;
    std::uint64_t filesDone = 0;
    std::uint64_t projectorCount = 0; // mmproj files recognised (attached, not listed)
    bool cancelled = false;
};

LibraryScanResult scanLibrary(const LibraryRoots& roots, std::stop_token stop = {},
                              const LibraryScanCallbacks& callbacks = {});

// The name listed for a model file found under `root`: "org/repo (file)" in the HF cache
// (models--org--repo/snapshots/<commit>/file.gguf), else the file name without ".gguf"; a
// split model is named by its prefix ("Qwen3-235B-Q4_K_M").
std::string libraryEntryName(const LibraryRoot& root, const std::string& modelPath);

} // namespace llamafit

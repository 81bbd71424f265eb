#pragma once
// Where GGUF models live on a machine by default: the library roots the model picker scans
// before the user adds folders of their own. Computed from an environment lookup, the home
// directory and the OS, so tests (and the GUI) never depend on the real environment.
// Used by the GUI's ModelPickerPanel (default roots) and the library scan (root kinds).
// Pure: no I/O (a root that does not exist is still listed; the scan skips it).
//
// Sources (/work/shared/reference/llama-server-conventions.md section 3):
//   HF hub cache   llama.cpp common/hf-cache.cpp: LLAMA_CACHE, HF_HUB_CACHE,
//                  HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub,
//                  ~/.cache/huggingface/hub (%USERPROFILE% on Windows)
//   legacy cache   llama.cpp common/common.cpp fs_get_cache_directory(): $LLAMA_CACHE, else
//                  $XDG_CACHE_HOME/llama.cpp or ~/.cache/llama.cpp (Linux),
//                  ~/Library/Caches/llama.cpp (macOS), %LOCALAPPDATA%\llama.cpp (Windows)
//   LM Studio      ~/.lmstudio/models, older installs ~/.cache/lm-studio/models
//                  (lmstudio-ai/docs 0_app/5_advanced/import-model.md)
//   Ollama         $OLLAMA_MODELS, else ~/.ollama/models; on Linux also the system service's
//                  /usr/share/ollama/.ollama/models (`ollama help serve`, ollama/ollama#10765)
// The Windows and macOS variants are written from that documentation and are untested.

#include "core/machine/memorypools.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class LibraryRootKind {
    HfHubCache,          // models--<org>--<repo>/snapshots/<commit>/<file>.gguf -> blobs/<sha>
    LegacyLlamaCppCache, // flat <org>_<repo>_<file>.gguf from older llama.cpp -hf downloads
    LmStudio,            // <publisher>/<model>/<file>.gguf
    Ollama,              // manifests/<host>/<namespace>/<model>/<tag> + blobs/sha256-<hex>
    UserFolder,          // a folder the user added: any layout
};

struct LibraryRoot {
    std::string path;
    LibraryRootKind kind = LibraryRootKind::UserFolder;
    std::string label; // for people: "Hugging Face cache", "Ollama", ...
    bool operator==(const LibraryRoot&) const = default;
};

using LibraryRoots = std::vector<LibraryRoot>;

// Returns the value of an environment variable, nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The default roots in scan order: HF hub cache, legacy llama.cpp cache, LM Studio (both
// folders), Ollama (and the Linux service folder). A variable set to the empty string counts
// as unset. Roots that resolve to the same path are listed once (the first kind wins: with
// LLAMA_CACHE set, the HF cache and the legacy cache are one folder).
LibraryRoots defaultLibraryRoots(const EnvironmentLookup& environment, const std::string& homeDirectory,
                                 OsKind os);

// The HF hub cache folder alone (first rule of defaultLibraryRoots).
std::string huggingFaceHubCacheDirectory(const EnvironmentLookup& environment,
                                         const std::string& homeDirectory, OsKind os);

// "HfHubCache" -> "Hugging Face cache", ... (English, for the GUI to translate).
std::string_view libraryRootKindLabel(LibraryRootKind kind);

} // namespace llamafit

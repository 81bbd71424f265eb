#include "core/library/modellocations.h"

#include <algorithm>

namespace llamafit {
namespace {

// Joins with the OS's separator; the roots are strings so a Windows layout can be computed
// (and tested) on Linux.
std::string join(std::string base, std::string_view tail, OsKind os) {
    const char separator = os == OsKind::Windows ? '\\' : '/';
    if (!base.empty() && base.back() != '/' && base.back() != '\\') {
        base += separator;
    }
    for (const char c : tail) {
        base += (c == '/') ? separator : c;
    }
    return base;
}

std::optional<std::string> nonEmpty(const EnvironmentLookup& environment, std::string_view name) {
    if (!environment) {
        return std::nullopt;
    }
    auto value = environment(name);
    if (!value || value->empty()) {
        return std::nullopt;
    }
    return value;
}

// llama.cpp common/common.cpp fs_get_cache_directory(): LLAMA_CACHE wins; otherwise the OS's
// cache folder plus "llama.cpp".
std::string legacyLlamaCppCacheDirectory(const EnvironmentLookup& environment, const std::string& home,
                                         OsKind os) {
    if (auto cache = nonEmpty(environment, "LLAMA_CACHE")) {
        return *cache;
    }
    switch (os) {
    case OsKind::MacOs:
        return join(home, "Library/Caches/llama.cpp", os);
    case OsKind::Windows:
        if (auto local = nonEmpty(environment, "LOCALAPPDATA")) {
            return join(*local, "llama.cpp", os);
        }
        return join(home, "AppData/Local/llama.cpp", os);
    case OsKind::Linux:
    case OsKind::Unknown:
        break;
    }
    if (auto xdg = nonEmpty(environment, "XDG_CACHE_HOME")) {
        return join(*xdg, "llama.cpp", os);
    }
    return join(home, ".cache/llama.cpp", os);
}

} // namespace

std::string huggingFaceHubCacheDirectory(const EnvironmentLookup& environment,
                                         const std::string& homeDirectory, OsKind os) {
    // llama.cpp common/hf-cache.cpp: the first variable that is set names the hub folder itself.
    for (const char* name : {"LLAMA_CACHE", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"}) {
        if (auto value = nonEmpty(environment, name)) {
            return *value;
        }
    }
    if (auto hfHome = nonEmpty(environment, "HF_HOME")) {
        return join(*hfHome, "hub", os);
    }
    // huggingface_hub honours XDG_CACHE_HOME on every OS (its default is ~/.cache/huggingface).
    if (auto xdg = nonEmpty(environment, "XDG_CACHE_HOME")) {
        return join(*xdg, "huggingface/hub", os);
    }
    return join(homeDirectory, ".cache/huggingface/hub", os);
}

LibraryRoots defaultLibraryRoots(const EnvironmentLookup& environment, const std::string& homeDirectory,
                                 OsKind os) {
    LibraryRoots roots;
    const auto add = [&roots](std::string path, LibraryRootKind kind) {
        const bool known = std::any_of(roots.begin(), roots.end(),
                                       [&path](const LibraryRoot& root) { return root.path == path; });
        if (!path.empty() && !known) {
            roots.push_back({std::move(path), kind, std::string(libraryRootKindLabel(kind))});
        }
    };
    add(huggingFaceHubCacheDirectory(environment, homeDirectory, os), LibraryRootKind::HfHubCache);
    add(legacyLlamaCppCacheDirectory(environment, homeDirectory, os), LibraryRootKind::LegacyLlamaCppCache);
    // LM Studio keeps the same folders under the home directory on every OS.
    add(join(homeDirectory, ".lmstudio/models", os), LibraryRootKind::LmStudio);
    add(join(homeDirectory, ".cache/lm-studio/models", os), LibraryRootKind::LmStudio);
    if (auto ollama = nonEmpty(environment, "OLLAMA_MODELS")) {
        add(*ollama, LibraryRootKind::Ollama);
    } else {
        add(join(homeDirectory, ".ollama/models", os), LibraryRootKind::Ollama);
    }
    if (os == OsKind::Linux) {
        // The Linux installer's service user "ollama" has its home at /usr/share/ollama.
        add("/usr/share/ollama/.ollama/models", LibraryRootKind::Ollama);
    }
    return roots;
}

std::string_view libraryRootKindLabel(LibraryRootKind kind) {
    switch (kind) {
    case LibraryRootKind::HfHubCache:
        return "Hugging Face cache";
    case LibraryRootKind::LegacyLlamaCppCache:
        return "llama.cpp cache";
    case LibraryRootKind::LmStudio:
        return "LM Studio";
    case LibraryRootKind::Ollama:
        return "Ollama";
    case LibraryRootKind::UserFolder:
        return "Your folder";
    }
    return "Folder";
}

} // namespace llamafit

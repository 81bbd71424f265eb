// Where llama-server builds live; see enginelocations.h.

#include "core/server/enginelocations.h"

#include <algorithm>

namespace llamafit {

namespace {

std::vector<std::string> splitPath(const std::string& value, char separator) {
    std::vector<std::string> folders;
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t end = std::min(value.find(separator, start), value.size());
        if (end > start) {
            folders.push_back(value.substr(start, end - start));
        }
        start = end + 1;
    }
    return folders;
}

std::string joined(std::string folder, const std::string& name, OsKind os) {
    const char separator = os == OsKind::Windows ? '\\' : '/';
    while (folder.size() > 1 && (folder.back() == '/' || folder.back() == '\\')) {
        folder.pop_back();
    }
    return folder + separator + name;
}

} // namespace

std::string llamaServerProgramName(OsKind os) {
    return os == OsKind::Windows ? "llama-server.exe" : "llama-server";
}

EngineSearch engineSearch(const EnvironmentLookup& environment, const std::string& homeDirectory, OsKind os,
                          const std::vector<std::string>& ownEngineFolders) {
    EngineSearch search;
    const std::string program = llamaServerProgramName(os);
    const auto add = [&](const std::string& folder, const std::string& origin) {
        EngineLocation location{joined(folder, program, os), origin};
        const bool seen =
            std::any_of(search.programs.begin(), search.programs.end(),
                        [&](const EngineLocation& known) { return known.path == location.path; });
        if (!seen) {
            search.programs.push_back(std::move(location));
        }
    };
    // LlamaFit's own builds first: the user chose to get them.
    for (const std::string& folder : ownEngineFolders) {
        add(folder, "LlamaFit");
    }
    if (const std::optional<std::string> path = environment("PATH")) {
        for (const std::string& folder : splitPath(*path, os == OsKind::Windows ? ';' : ':')) {
            add(folder, "PATH");
        }
    }
    switch (os) {
    case OsKind::Linux:
        add("/usr/bin", "Debian");
        add("/home/linuxbrew/.linuxbrew/bin", "Homebrew");
        add(homeDirectory + "/.linuxbrew/bin", "Homebrew");
        break;
    case OsKind::MacOs:
        add("/opt/homebrew/bin", "Homebrew");
        add("/usr/local/bin", "Homebrew");
        break;
    case OsKind::Windows: {
        const std::string localAppData =
            environment("LOCALAPPDATA").value_or(homeDirectory + "\\AppData\\Local");
        add(localAppData + "\\Microsoft\\WinGet\\Links", "winget");
        search.folderScans.push_back(
            {localAppData + "\\Microsoft\\WinGet\\Packages", "ggml.llamacpp_", "winget"});
        break;
    }
    case OsKind::Unknown:
        break;
    }
    return search;
}

} // namespace llamafit

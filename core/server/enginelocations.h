#pragma once
// Where llama-server builds live on a machine, before anything is run: every folder of PATH,
// and the places package managers and installers put it where PATH may not reach --
// Homebrew (/opt/homebrew/bin on Apple silicon, /usr/local/bin on Intel Macs,
// /home/linuxbrew/.linuxbrew/bin on Linux), Debian's llama.cpp-tools (/usr/bin), winget's
// links and package folders (%LOCALAPPDATA%\Microsoft\WinGet\Links, ...\Packages\ggml.llamacpp_*),
// and the builds LlamaFit itself keeps. core/system/enginediscovery.h runs each one found to
// learn its build and devices.
// Pure: the environment comes in as a lookup; folders to search one level down (winget's
// packages) are returned as such, for the caller to list.

#include "core/library/modellocations.h"
#include "core/machine/memorypools.h"

#include <string>
#include <vector>

namespace llamafit {

struct EngineLocation {
    std::string path;   // the llama-server program (llama-server.exe on Windows)
    std::string origin; // for people: "PATH", "Homebrew", "Debian", "winget", "LlamaFit"
    bool operator==(const EngineLocation&) const = default;
};

struct EngineSearch {
    std::vector<EngineLocation> programs; // in the order they are preferred, duplicates removed
    // Folders whose subfolders matching `subfolderPrefix` may hold the program (winget's packages).
    struct FolderScan {
        std::string folder;
        std::string subfolderPrefix; // "ggml.llamacpp_"
        std::string origin;
        bool operator==(const FolderScan&) const = default;
    };
    std::vector<FolderScan> folderScans;
};

// `ownEngineFolders`: the folders LlamaFit unpacked builds into (each holds the program).
EngineSearch engineSearch(const EnvironmentLookup& environment, const std::string& homeDirectory, OsKind os,
                          const std::vector<std::string>& ownEngineFolders = {});

// "llama-server.exe" on Windows, else "llama-server".
std::string llamaServerProgramName(OsKind os);

} // namespace llamafit

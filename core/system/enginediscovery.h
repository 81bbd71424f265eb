#pragma once
// The llama-server builds already on this machine (core/server/enginelocations.h says where to
// look), each run to learn what it is: `--version` and `--help` (its build, parsed by
// core/server/buildcapabilities.h) and `--list-devices` (the backends and devices it would use,
// core/server/devicelist.h). A program that does not run, or answers like no llama-server, is
// listed with its error rather than left out, so the user sees why a build they installed is not
// offered. Blocking (QProcess with deadlines): for the CLI, and the GUI off its thread.
// Thread: any.

#include "core/common/result.h"
#include "core/server/buildcapabilities.h"
#include "core/server/devicelist.h"
#include "core/server/enginelocations.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct InstalledEngine {
    EngineLocation location;
    std::optional<BuildCapabilities> build; // set when --version and --help were understood
    std::vector<ListedDevice> devices;      // --list-devices: empty for the CPU alone
    std::optional<Error> error;             // why it could not be probed
};

struct EngineDiscoveryOptions {
    std::vector<std::string> ownEngineFolders;
    std::chrono::milliseconds timeout{20000}; // per program run
};

// Every llama-server found, in engineSearch()'s order; the same file reached twice (a symlink
// on PATH to Debian's /usr/bin) is listed once.
std::vector<InstalledEngine> discoverEngines(const EngineDiscoveryOptions& options = {});

} // namespace llamafit

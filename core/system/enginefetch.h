#pragma once
// Gets llama.cpp's official release build for this machine (core/server/llamarelease.h chooses
// the asset) into LlamaFit's engines folder, beside any other builds:
//   <engines>/<tag>-<backend>/...   the archive unpacked as released (llama-<tag>/llama-server ...)
// The archive is downloaded whole into <engines>/.downloads/, its sha256 compared with the digest
// GitHub publishes before anything is unpacked (release.digest-mismatch: the file is deleted), then
// unpacked by the system's tar (bsdtar on Windows 10+ reads the .zip builds too; unzip for a .zip
// elsewhere) into a temporary folder that is renamed into place only when it holds llama-server.
// core/system/enginediscovery.h lists what is there (ownEngineFolders()).
// Thread: HubClient's (blocking).
//
// Error codes: HubClient's (for the listing and the download), release.*, release.digest-mismatch,
// release.unpack-failed, release.no-program (the archive holds no llama-server), hub.cache-write.

#include "core/common/result.h"
#include "core/server/llamarelease.h"
#include "core/system/hubclient.h"
#include "core/system/hubdownload.h"

#include <string>
#include <vector>

namespace llamafit {

struct EngineFetchRequest {
    std::string releasesUrl = std::string(kLlamaReleasesLatestUrl); // the releases/latest JSON
    std::string enginesRoot;                                        // defaultEnginesRoot() in the apps
    EngineBackend backend = EngineBackend::Cpu;
    OsKind os = OsKind::Linux;
    std::string cpu = "x64";
};

struct FetchedEngine {
    std::string tag;     // "b11669"
    std::string folder;  // <engines>/<tag>-<backend>
    std::string program; // the llama-server in it
};

Result<FetchedEngine> fetchEngine(HubClient& http, const EngineFetchRequest& request,
                                  const HubProgressCallback& progress = {});

// $LLAMAFIT_ENGINES_DIR when set (a portable install, a test), else
// <generic data location>/llamafit/engines.
std::string defaultEnginesRoot();

// The folders under `enginesRoot` that hold a llama-server (as unpacked, a level or two down).
std::vector<std::string> ownEngineFolders(const std::string& enginesRoot, OsKind os);

// "x64" or "arm64" for this process's CPU.
std::string currentCpuName();

} // namespace llamafit

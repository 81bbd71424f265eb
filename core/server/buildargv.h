#pragma once
// serverArgvForBuild: the llama-server argv for a model and its ServerSettings, spelled the
// way one build knows (BuildCapabilities, from its --help). Used by the launcher
// (`llamafit-cli launch`, later the GUI) before ServerProcess::start. Pure: no I/O.
//
// The settings are first spelled as 0.7.0 does (toServerArgs, core/sizing/serverargs.h),
// then each flag is re-spelled for the build: an alternative spelling it lists (-ctxcp vs
// --swa-checkpoints), `-lm none` -> `--no-mmap`, `-fa on` -> bare `-fa`, `-fa off` -> nothing
// (flash attention is off by default where -fa is a switch), `-ngl all` -> `-ngl 999`. A
// setting the build cannot express is refused, never dropped: a launch that silently
// ignored `-ctk q8_0` would allocate a different KV cache than the one estimated.
//
// Error codes: build.unsupported-setting (names the setting, its value and the build),
// build.unknown-flag (an extra argument the build's --help does not list).

#include "core/common/result.h"
#include "core/server/buildcapabilities.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct LaunchArgvOptions {
    std::string host = "127.0.0.1";    // --host; empty: not passed
    std::optional<std::uint16_t> port; // --port; nullopt: not passed (ServerProcess picks a free one)
    bool metrics = true;               // --metrics (the monitor reads /metrics)
    // -lv N: 4 prints the buffer-size lines (core/server/allocationlog.h); nullopt: not passed.
    std::optional<int> logVerbosity = 4;
    // Passed through after the settings (e.g. "--no-warmup", "-t", "4"); every word that looks
    // like a flag must be listed in the build's --help.
    std::vector<std::string> extraArgs;
};

struct BuildArgv {
    std::vector<std::string> args;  // without the program
    std::vector<std::string> notes; // re-spellings made: "-lm none spelled --no-mmap for llama-server 5560"
    bool operator==(const BuildArgv&) const = default;
};

Result<BuildArgv> serverArgvForBuild(const ServerSettings& settings, const std::string& modelPath,
                                     const BuildCapabilities& capabilities,
                                     const LaunchArgvOptions& options = {});

} // namespace llamafit

#pragma once
// serverArgvForBuild: the llama-server argv for a model and its ServerSettings, spelled the
// way one build knows (BuildCapabilities, from its --help). Used by the launcher
// (`llamafit-cli launch`, the GUI's launch panel) before ServerProcess::start. Pure: no I/O.
//
// Each setting is spelled from its row of the flag table (core/flags/flagtable.h): the first
// spelling of the row the build lists (-ctxcp vs --swa-checkpoints), and for a build that
// lacks 0.7.0's form of a value, the form it has: `-lm none` -> `--no-mmap`, `-fa on` -> bare
// `-fa`, `-fa off` -> nothing (flash attention is off by default where -fa is a switch),
// `-ngl all` -> `-ngl 999`. A setting the build cannot express is refused, never dropped: a
// launch that silently ignored `-ctk q8_0` would allocate a different KV cache than the one
// estimated. unprobedServerArgv is the same argv with 0.7.0's spellings, unchecked, for a
// binary that could not be probed.
//
// Error codes: build.unsupported-setting (names the setting, its value and the build; the
// Error's settings and flag say which), build.unknown-flag (an extra argument the build's
// --help does not list; Error::flag is that word).

#include "core/common/result.h"
#include "core/server/buildcapabilities.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

// What the launcher adds after the settings. launchArgvOptions decides them once from what the
// user typed; the argv builders spell them as they are.
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

// The argv options for a launch: `host` (empty: not passed), `port` (nullopt: ServerProcess
// picks a free one) and the extra words. Where the extra words already hold --host, --port,
// --metrics or -lv (any spelling of their rows in the flag table), the launcher's own is left
// out: the user's word wins and nothing is passed twice.
LaunchArgvOptions launchArgvOptions(const std::string& host, std::optional<std::uint16_t> port,
                                    std::vector<std::string> extraArgs);

struct BuildArgv {
    std::vector<std::string> args;  // without the program
    std::vector<std::string> notes; // re-spellings made: "-lm none spelled --no-mmap for llama-server 5560"
    bool operator==(const BuildArgv&) const = default;
};

Result<BuildArgv> serverArgvForBuild(const ServerSettings& settings, const std::string& modelPath,
                                     const BuildCapabilities& capabilities,
                                     const LaunchArgvOptions& options = {});

// The 0.7.0 spelling, unchecked: -m MODEL, toServerArgs(settings), the extra words, --host,
// --port, --metrics, -lv N. Used when the binary cannot be probed.
std::vector<std::string> unprobedServerArgv(const std::string& modelPath, const ServerSettings& settings,
                                            const LaunchArgvOptions& options);

} // namespace llamafit

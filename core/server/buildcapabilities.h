#pragma once
// BuildCapabilities: what one llama-server build understands, read from the text it prints
// for `--version` and `--help`. Used by serverArgvForBuild (buildargv.h) to spell each
// setting the way that build knows, and by core/system/serverbinaryprobe.h, which runs the
// binary and caches the texts. Pure: parses text, no I/O.
//
// Why: flags differ across builds. 0.7.0 (Debian b11669) rejects --no-mmap and --mlock and
// has -lm/--load-mode, takes `-fa on|off|auto`, listens on 9931 by default; older builds take
// --no-mmap, a bare `-fa` (enable), and listen on 8080. The --help layout is the one of
// llama.cpp common/arg.cpp (common_arg::to_string): each option starts at column 0 with its
// spellings separated by ", ", then the value hint, then the description from column 40;
// continuation lines are indented.
//
// Error codes: build.no-version (no "version:" line), build.no-help (no option in the help).

#include "core/common/result.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct BuildCapabilities {
    std::string version;                      // "0.7.0", or the build number of older builds: "5560"
    std::optional<std::uint32_t> buildNumber; // 11669 for "version: 0.7.0 (build 11669, commit Debian)"
    std::string commit;                       // "Debian", "a4417ddd"
    std::set<std::string> flags;              // every spelling in --help: "-fa", "--flash-attn", ...
    bool hasLoadMode = false;                 // -lm/--load-mode exists (0.7.0); else --no-mmap/--mlock
    bool flashAttnTakesValue = false;         // `-fa on|off|auto`; false: bare `-fa` enables it
    bool gpuLayersTakesAuto = false;          // `-ngl auto|all` accepted (the help names 'auto')
    std::vector<std::string> cacheTypes;      // -ctk "allowed values", empty when the help lists none
    std::uint16_t defaultPort = 8080;         // from "--port PORT ... (default: N)"
    // `llama-server <args> --version` parses every argument before printing the version
    // (rc 0) or rejects the first bad one (rc 1, "error: invalid argument: --x") without
    // loading anything. Verified on 0.7.0; assumed for every build that lists --version,
    // because common/arg.cpp has parsed the argv in order before acting since the
    // common_arg rewrite.
    bool supportsArgvCheck = false;

    bool knows(std::string_view spelling) const { return flags.count(std::string(spelling)) > 0; }
    // A one-line label for messages: "llama-server 0.7.0 (build 11669)".
    std::string label() const;
    bool operator==(const BuildCapabilities&) const = default;
};

// versionText: everything `llama-server --version` printed (stdout and stderr together);
// helpText: everything `llama-server --help` printed.
Result<BuildCapabilities> parseBuildCapabilities(std::string_view versionText, std::string_view helpText);

// The llama.cpp build number in `llama-server --version`'s text ("version: 0.7.0 (build 11669,
// ...)" or, before releases had versions, "version: 8183 (abc1234)"); nullopt without one.
std::optional<std::uint32_t> buildNumberOfVersion(std::string_view versionText);

} // namespace llamafit

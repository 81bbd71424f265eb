#pragma once
// Who can reach a launched llama-server. It listens on --host (127.0.0.1 unless told otherwise)
// and answers anyone who connects: without --api-key / --api-key-file it has no authentication
// at all (tools/server: the API-key check runs only when keys are given; measured on 0.7.0, it
// then answers 401 without "Authorization: Bearer KEY" on /metrics, /slots, /props and
// /models, and only /health stays open). So LlamaFit listens beyond this computer only when
// the user chose it, and then never without a key: guardExposure refuses a non-loopback --host
// that was not chosen and adds --api-key-file to a chosen one. The key lives in a file
// (written by core/system/apikeyfile.h with user-only permissions) so it never appears in a
// process list, an exported script or a log. Pure: no I/O.
//
// Error codes: launch.exposure-not-chosen (a non-loopback --host without the user's choice; the
// message names the address and the choice to make), launch.api-key-file-missing (exposure
// chosen, but no key file to pass).

#include "core/common/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// 127.0.0.0/8, ::1, "localhost", and a Unix socket path (llama-server listens on a socket
// when --host ends in ".sock"): nothing another machine can connect to.
bool isLoopbackHost(std::string_view host);

struct NetworkExposure {
    bool chosen = false;    // the user asked to listen beyond this computer (--expose, the GUI's box)
    std::string apiKeyFile; // passed as --api-key-file when chosen and the words hold no key
};

// The address this machine reaches a server bound to `host` at: a wildcard bind on loopback
// ("0.0.0.0" -> "127.0.0.1", "::" -> "::1"), no host as the servers' default 127.0.0.1, any other
// address as it is. For llama-server's /health and ggml-rpc-server's port.
std::string reachableAddress(std::string_view host);

// The address a launch or an export listens on: a --host among the extra words wins (the
// launcher leaves its own out then: launchArgvOptions), else `host`, else llama-server's
// default 127.0.0.1.
std::string listeningHost(const std::string& host, const std::vector<std::string>& extraArgs);

// The extra words of a launch or an export on `host` as they may run under `exposure`: the
// same words, with --api-key-file added when exposure is chosen and they hold no key.
Result<std::vector<std::string>> guardExposure(const std::string& host, std::vector<std::string> extraArgs,
                                               const NetworkExposure& exposure);

// Where the key the monitor must send comes from: the value of --api-key, or the path of
// --api-key-file (its first line is the key, as llama-server reads it). nullopt: no key.
struct ApiKeySource {
    std::string key;
    std::string file;
    bool operator==(const ApiKeySource&) const = default;
};
std::optional<ApiKeySource> apiKeySource(const std::vector<std::string>& words);

// The key in a key file's content: its first line, without the line end (llama-server takes
// each non-empty line as a key; LlamaFit writes one).
std::string apiKeyFromFileContent(std::string_view content);

} // namespace llamafit

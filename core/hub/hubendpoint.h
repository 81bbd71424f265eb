#pragma once
// The Hub's address, its URLs, and the token: which endpoint a request goes to (a mirror when
// the user set one), how each URL is spelled, where the token comes from, and which hosts may
// see it. A token goes to the endpoint's own origin only, never to the CDN host a resolve
// redirects to (huggingface_hub PR #4739, hf-hub PR #176).
//
// Sources (/work/shared/reference/model-sourcing.md section 1): llama.cpp b11669
// common_get_model_endpoint (MODEL_ENDPOINT, then HF_ENDPOINT); huggingface_hub constants.py and
// utils/_auth.py (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, HF_TOKEN_PATH, $HF_HOME/token,
// ~/.cache/huggingface/token).
// Pure functions: the environment and the token file come in as lookups.

#include "core/library/modellocations.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace llamafit {

inline constexpr std::string_view kDefaultHubEndpoint = "https://huggingface.co";

// MODEL_ENDPOINT, then HF_ENDPOINT, then huggingface.co; without a trailing '/'. A value that is
// not an http(s) URL is ignored (the next rule applies).
std::string hubEndpoint(const EnvironmentLookup& environment);

// "scheme://host:port", lower-case, the port spelled out (80/443 by default); "" for a URL that is
// not http(s) or has no host.
std::string urlOrigin(std::string_view url);

// True when `url` is on `endpoint`'s origin: the only requests a token is sent with.
bool mayCarryToken(std::string_view url, std::string_view endpoint);

// Percent-encodes everything but RFC 3986's unreserved characters (and '/' when keepSlashes).
std::string percentEncode(std::string_view text, bool keepSlashes = false);

std::string hubSearchUrl(std::string_view endpoint, std::string_view query, std::uint32_t limit);
std::string hubRefsUrl(std::string_view endpoint, std::string_view repoId);
std::string hubTreeUrl(std::string_view endpoint, std::string_view repoId, std::string_view commit);
std::string hubResolveUrl(std::string_view endpoint, std::string_view repoId, std::string_view revision,
                          std::string_view repoPath);

// Reads a whole small file; nullopt when it cannot be read.
using TextFileReader = std::function<std::optional<std::string>(const std::string& path)>;

// The user's token, trimmed; nullopt when there is none. The rule order is huggingface_hub's.
std::optional<std::string> hubToken(const EnvironmentLookup& environment, const std::string& homeDirectory,
                                    const TextFileReader& readFile);

} // namespace llamafit

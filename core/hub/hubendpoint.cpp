// The Hub's endpoint, URLs and token; see hubendpoint.h.

#include "core/hub/hubendpoint.h"
#include "core/common/asciitext.h"

#include <algorithm>
#include <cctype>

namespace llamafit {

namespace {

// The variable trimmed of ASCII spaces, or nothing when it is unset or blank.
std::optional<std::string> trimmedVariable(const EnvironmentLookup& environment, std::string_view name) {
    std::optional<std::string> value = environment(name);
    if (value) {
        *value = asciiTrimmed(*value);
        if (value->empty()) {
            return std::nullopt;
        }
    }
    return value;
}

} // namespace

std::string urlOrigin(std::string_view url) {
    const std::size_t schemeEnd = url.find("://");
    if (schemeEnd == std::string_view::npos) {
        return {};
    }
    const std::string scheme = asciiLower(url.substr(0, schemeEnd));
    if (scheme != "http" && scheme != "https") {
        return {};
    }
    std::string_view authority = url.substr(schemeEnd + 3);
    authority = authority.substr(0, std::min(authority.find_first_of("/?#"), authority.size()));
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
        authority.remove_prefix(at + 1); // user info never makes another origin look like ours
    }
    std::string host(authority);
    std::string port = scheme == "https" ? "443" : "80";
    const std::size_t colon = host.rfind(':');
    const std::size_t bracket = host.rfind(']');
    if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
        port = host.substr(colon + 1);
        host.erase(colon);
        if (port.empty() ||
            !std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); })) {
            return {};
        }
    }
    if (host.empty()) {
        return {};
    }
    return scheme + "://" + asciiLower(host) + ":" + port;
}

std::string hubEndpoint(const EnvironmentLookup& environment) {
    for (const std::string_view name : {"MODEL_ENDPOINT", "HF_ENDPOINT"}) {
        std::optional<std::string> value = trimmedVariable(environment, name);
        if (value && !urlOrigin(*value).empty()) {
            while (!value->empty() && value->back() == '/') {
                value->pop_back();
            }
            return *value;
        }
    }
    return std::string(kDefaultHubEndpoint);
}

bool mayCarryToken(std::string_view url, std::string_view endpoint) {
    const std::string origin = urlOrigin(url);
    return !origin.empty() && origin == urlOrigin(endpoint);
}

std::string percentEncode(std::string_view text, bool keepSlashes) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string encoded;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~' || (keepSlashes && c == '/')) {
            encoded += c;
        } else {
            encoded += '%';
            encoded += kHex[byte >> 4];
            encoded += kHex[byte & 0x0F];
        }
    }
    return encoded;
}

std::string hubSearchUrl(std::string_view endpoint, std::string_view query, std::uint32_t limit) {
    return std::string(endpoint) + "/api/models?search=" + percentEncode(query) +
           "&filter=gguf&sort=downloads&limit=" + std::to_string(limit) +
           "&expand%5B%5D=gguf&expand%5B%5D=gated&expand%5B%5D=downloads&expand%5B%5D=likes";
}

std::string hubRefsUrl(std::string_view endpoint, std::string_view repoId) {
    return std::string(endpoint) + "/api/models/" + percentEncode(repoId, true) + "/refs";
}

std::string hubTreeUrl(std::string_view endpoint, std::string_view repoId, std::string_view commit) {
    return std::string(endpoint) + "/api/models/" + percentEncode(repoId, true) + "/tree/" +
           percentEncode(commit) + "?recursive=true";
}

std::string hubResolveUrl(std::string_view endpoint, std::string_view repoId, std::string_view revision,
                          std::string_view repoPath) {
    return std::string(endpoint) + "/" + percentEncode(repoId, true) + "/resolve/" + percentEncode(revision) +
           "/" + percentEncode(repoPath, true);
}

std::optional<std::string> hubToken(const EnvironmentLookup& environment, const std::string& homeDirectory,
                                    const TextFileReader& readFile) {
    for (const std::string_view name : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"}) {
        if (std::optional<std::string> token = trimmedVariable(environment, name)) {
            return token;
        }
    }
    std::string path;
    if (const std::optional<std::string> tokenPath = trimmedVariable(environment, "HF_TOKEN_PATH")) {
        path = *tokenPath;
    } else if (const std::optional<std::string> home = trimmedVariable(environment, "HF_HOME")) {
        path = *home + "/token";
    } else if (const std::optional<std::string> xdg = trimmedVariable(environment, "XDG_CACHE_HOME")) {
        path = *xdg + "/huggingface/token";
    } else {
        path = homeDirectory + "/.cache/huggingface/token";
    }
    if (std::optional<std::string> token = readFile(path)) {
        *token = asciiTrimmed(*token);
        if (!token->empty() && token->find_first_of("\r\n") == std::string::npos) {
            return token;
        }
    }
    return std::nullopt;
}

} // namespace llamafit

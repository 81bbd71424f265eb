#include "core/server/exposure.h"

#include "core/flags/flagtable.h"

#include <algorithm>
#include <cctype>

namespace llamafit {

namespace {

bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// 127.x.y.z in dotted decimal, each part 0-255.
bool isIpv4Loopback(std::string_view host) {
    int parts = 0;
    std::size_t start = 0;
    while (start <= host.size()) {
        const std::size_t dot = std::min(host.find('.', start), host.size());
        const std::string_view part = host.substr(start, dot - start);
        if (part.empty() || part.size() > 3 ||
            !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
            std::stoi(std::string(part)) > 255 || (parts == 0 && part != "127")) {
            return false;
        }
        ++parts;
        start = dot + 1;
    }
    return parts == 4;
}

// The value of the last occurrence of `id`'s row among `words` ("--host X" or "--host=X").
std::optional<std::string> lastValueOf(const std::vector<std::string>& words, FlagId id) {
    const FlagRow& row = flagRow(id);
    std::optional<std::string> value;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string_view name = flagName(words[i]);
        if (!row.hasSpelling(name)) {
            continue;
        }
        if (name.size() < words[i].size()) {
            value = words[i].substr(name.size() + 1);
        } else if (i + 1 < words.size()) {
            value = words[++i];
        }
    }
    return value;
}

} // namespace

bool isLoopbackHost(std::string_view host) {
    const std::string name = lowered(host);
    // tools/server: a --host ending in ".sock" is a Unix socket path, not an address.
    return name == "localhost" || name == "::1" || name == "[::1]" || isIpv4Loopback(name) ||
           endsWith(name, ".sock");
}

std::string reachableAddress(std::string_view host) {
    if (host.empty() || host == "0.0.0.0") {
        return "127.0.0.1";
    }
    return host == "::" ? std::string("::1") : std::string(host);
}

std::string listeningHost(const std::string& host, const std::vector<std::string>& extraArgs) {
    if (std::optional<std::string> typed = lastValueOf(extraArgs, FlagId::Host)) {
        return *typed;
    }
    return host.empty() ? std::string("127.0.0.1") : host;
}

Result<std::vector<std::string>> guardExposure(const std::string& host, std::vector<std::string> extraArgs,
                                               const NetworkExposure& exposure) {
    const std::string listening = listeningHost(host, extraArgs);
    if (!exposure.chosen) {
        if (!isLoopbackHost(listening)) {
            return makeError(
                "launch.exposure-not-chosen",
                "--host " + listening +
                    " lets other machines reach llama-server, which has no authentication "
                    "of its own; choose it explicitly (llamafit-cli --expose, or \"Allow access "
                    "from the network\" in the app) and LlamaFit passes llama-server a generated "
                    "API key file");
        }
        return extraArgs;
    }
    if (apiKeySource(extraArgs)) {
        return extraArgs; // the user's own --api-key or --api-key-file
    }
    if (exposure.apiKeyFile.empty()) {
        return makeError("launch.api-key-file-missing",
                         "access from the network was chosen, but there is no API key file to pass");
    }
    extraArgs.emplace_back(flagRow(FlagId::ApiKeyFile).canonicalSpelling());
    extraArgs.push_back(exposure.apiKeyFile);
    return extraArgs;
}

std::optional<ApiKeySource> apiKeySource(const std::vector<std::string>& words) {
    if (std::optional<std::string> file = lastValueOf(words, FlagId::ApiKeyFile)) {
        return ApiKeySource{{}, *file};
    }
    if (std::optional<std::string> key = lastValueOf(words, FlagId::ApiKey)) {
        return ApiKeySource{*key, {}};
    }
    return std::nullopt;
}

std::string apiKeyFromFileContent(std::string_view content) {
    std::string_view line = content.substr(0, content.find('\n'));
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    return std::string(line);
}

} // namespace llamafit

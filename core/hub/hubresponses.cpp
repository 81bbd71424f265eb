// The Hugging Face Hub's answers, parsed and checked; see hubresponses.h.

#include "core/hub/hubresponses.h"
#include "core/common/asciitext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace llamafit {

namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxRepoNamePart = 96;
constexpr std::size_t kMaxPathBytes = 1024;

Error badResponse(std::string what) {
    return makeError("hub.bad-response", "the Hub's answer " + std::move(what));
}

Result<Json> parseJson(std::string_view text) {
    Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
        return badResponse("is not JSON");
    }
    return json;
}

std::uint64_t unsignedOr(const Json& object, const char* key, std::uint64_t fallback = 0) {
    const auto found = object.find(key);
    if (found == object.end() || !found->is_number_unsigned()) {
        return fallback;
    }
    return found->get<std::uint64_t>();
}

std::string stringOr(const Json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string{};
}

bool isValidUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        std::size_t length = 0;
        std::uint32_t minimum = 0;
        if (lead < 0x80) {
            ++i;
            continue;
        }
        if ((lead & 0xE0) == 0xC0) {
            length = 2;
            minimum = 0x80;
        } else if ((lead & 0xF0) == 0xE0) {
            length = 3;
            minimum = 0x800;
        } else if ((lead & 0xF8) == 0xF0) {
            length = 4;
            minimum = 0x10000;
        } else {
            return false;
        }
        if (i + length > text.size()) {
            return false;
        }
        std::uint32_t codePoint = lead & (0x7F >> length);
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80) {
                return false;
            }
            codePoint = (codePoint << 6) | (next & 0x3F);
        }
        if (codePoint < minimum || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
            return false;
        }
        i += length;
    }
    return true;
}

bool isRepoNamePart(std::string_view part) {
    if (part.empty() || part.size() > kMaxRepoNamePart) {
        return false;
    }
    const auto allowed = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    };
    return std::all_of(part.begin(), part.end(), allowed) && part.find("--") == std::string_view::npos &&
           part.find("..") == std::string_view::npos && part.front() != '-' && part.front() != '.' &&
           part.back() != '-' && part.back() != '.';
}

std::optional<std::uint64_t> parseUnsigned(std::string_view text) {
    const std::string value = asciiTrimmed(text);
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || error != std::errc{} || end != value.data() + value.size()) {
        return std::nullopt;
    }
    return number;
}

} // namespace

bool isValidRepoId(std::string_view repoId) {
    const std::size_t slash = repoId.find('/');
    if (slash == std::string_view::npos || repoId.find('/', slash + 1) != std::string_view::npos) {
        return false;
    }
    return isRepoNamePart(repoId.substr(0, slash)) && isRepoNamePart(repoId.substr(slash + 1));
}

bool isSha256Hex(std::string_view text) {
    return text.size() == 64 &&
           std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

bool isSafeRepoPath(std::string_view path) {
    if (path.empty() || path.size() > kMaxPathBytes || !isValidUtf8(path)) {
        return false;
    }
    const bool badCharacter = std::any_of(path.begin(), path.end(), [](unsigned char c) {
        return c < 0x20 || c == 0x7F || c == '\\' || c == ':';
    });
    if (badCharacter) {
        return false;
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string_view segment = path.substr(start, end - start);
        if (segment.empty() || segment == "." || segment == "..") {
            return false;
        }
        start = end + 1;
    }
    return true;
}

Result<std::vector<HubModelSummary>> parseModelSearch(std::string_view text) {
    auto json = parseJson(text);
    if (!json) {
        return json.error();
    }
    if (!json->is_array()) {
        return badResponse("to a model search is not a list");
    }
    std::vector<HubModelSummary> models;
    for (const Json& entry : *json) {
        if (!entry.is_object()) {
            return badResponse("to a model search holds a model that is not an object");
        }
        HubModelSummary model;
        model.id = stringOr(entry, "id");
        if (model.id.empty()) {
            model.id = stringOr(entry, "modelId");
        }
        if (!isValidRepoId(model.id)) {
            return badResponse("names a model '" + model.id.substr(0, 200) + "' that is not a repo id");
        }
        model.downloads = unsignedOr(entry, "downloads");
        model.likes = unsignedOr(entry, "likes");
        const auto gated = entry.find("gated");
        model.gated =
            gated != entry.end() && ((gated->is_boolean() && gated->get<bool>()) || gated->is_string());
        const auto gguf = entry.find("gguf");
        if (gguf != entry.end() && gguf->is_object()) {
            model.architecture = stringOr(*gguf, "architecture");
            model.parameters = unsignedOr(*gguf, "total");
            model.contextLength = unsignedOr(*gguf, "context_length");
        }
        models.push_back(std::move(model));
    }
    return models;
}

Result<std::string> parseBranchCommit(std::string_view text, std::string_view branch) {
    auto json = parseJson(text);
    if (!json) {
        return json.error();
    }
    const auto branches = json->is_object() ? json->find("branches") : json->end();
    if (branches == json->end() || !branches->is_array()) {
        return badResponse("to a refs request has no branch list");
    }
    for (const Json& entry : *branches) {
        if (entry.is_object() && stringOr(entry, "name") == branch) {
            std::string commit = asciiLower(stringOr(entry, "targetCommit"));
            const bool hex =
                commit.size() == 40 &&
                std::all_of(commit.begin(), commit.end(), [](unsigned char c) { return std::isxdigit(c); });
            if (!hex) {
                return badResponse("gives branch '" + std::string(branch) +
                                   "' a commit that is not 40 hex digits");
            }
            return commit;
        }
    }
    return makeError("hub.no-branch", "the repo has no branch '" + std::string(branch) + "'");
}

Result<std::vector<HubRepoFile>> parseRepoTree(std::string_view text) {
    auto json = parseJson(text);
    if (!json) {
        return json.error();
    }
    if (!json->is_array()) {
        return badResponse("to a tree request is not a list");
    }
    std::vector<HubRepoFile> files;
    for (const Json& entry : *json) {
        if (!entry.is_object()) {
            return badResponse("to a tree request holds an entry that is not an object");
        }
        if (stringOr(entry, "type") != "file") {
            continue;
        }
        HubRepoFile file;
        file.path = stringOr(entry, "path");
        if (!isSafeRepoPath(file.path)) {
            return badResponse("lists a file whose path is not safe to store: '" + file.path.substr(0, 200) +
                               "'");
        }
        const auto size = entry.find("size");
        if (size == entry.end() || !size->is_number_unsigned()) {
            return badResponse("lists '" + file.path + "' without a size");
        }
        file.size = size->get<std::uint64_t>();
        file.gitOid = stringOr(entry, "oid");
        const auto lfs = entry.find("lfs");
        if (lfs != entry.end() && lfs->is_object()) {
            file.sha256 = asciiLower(stringOr(*lfs, "oid"));
            if (!isSha256Hex(file.sha256)) {
                return badResponse("gives '" + file.path + "' an LFS hash that is not a sha256");
            }
            const std::uint64_t lfsSize = unsignedOr(*lfs, "size", file.size);
            if (lfsSize != file.size) {
                return badResponse("gives '" + file.path + "' two sizes");
            }
        }
        files.push_back(std::move(file));
    }
    return files;
}

Result<ResolvedFileHeaders> parseResolveHeaders(const HeaderLookup& header) {
    ResolvedFileHeaders resolved;
    resolved.commit = asciiLower(asciiTrimmed(header("X-Repo-Commit").value_or("")));
    resolved.location = asciiTrimmed(header("Location").value_or(""));
    std::string etag = asciiTrimmed(header("X-Linked-Etag").value_or(""));
    if (etag.starts_with("W/")) {
        etag.erase(0, 2);
    }
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
        etag = etag.substr(1, etag.size() - 2);
    }
    if (!etag.empty()) {
        if (!isSha256Hex(etag)) {
            return badResponse("gives an X-Linked-Etag that is not a sha256");
        }
        resolved.sha256 = asciiLower(etag);
    }
    const std::optional<std::string> linkedSize = header("X-Linked-Size");
    const std::optional<std::string> size = linkedSize ? linkedSize : header("Content-Length");
    if (size) {
        resolved.size = parseUnsigned(*size);
        if (!resolved.size) {
            return badResponse("gives a file size that is not a number");
        }
    }
    return resolved;
}

std::optional<std::string> nextPageUrl(std::string_view linkHeader) {
    // Link: <url>; rel="next", <url2>; rel="prev"
    std::size_t at = 0;
    while (at < linkHeader.size()) {
        const std::size_t open = linkHeader.find('<', at);
        const std::size_t close = open == std::string_view::npos ? open : linkHeader.find('>', open);
        if (close == std::string_view::npos) {
            return std::nullopt;
        }
        const std::size_t end = std::min(linkHeader.find(',', close), linkHeader.size());
        const std::string params = asciiLower(std::string(linkHeader.substr(close + 1, end - close - 1)));
        if (params.find("rel=\"next\"") != std::string::npos ||
            params.find("rel=next") != std::string::npos) {
            return std::string(linkHeader.substr(open + 1, close - open - 1));
        }
        at = end + 1;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> rateLimitResetSeconds(std::string_view header) {
    std::size_t at = 0;
    while (at < header.size()) {
        const std::size_t end = std::min(header.find(';', at), header.size());
        const std::string item = asciiTrimmed(header.substr(at, end - at));
        if (item.starts_with("t=")) {
            const auto seconds = parseUnsigned(std::string_view(item).substr(2));
            if (seconds && *seconds <= 24 * 3600) {
                return static_cast<std::uint32_t>(*seconds);
            }
            return std::nullopt;
        }
        at = end + 1;
    }
    return std::nullopt;
}

} // namespace llamafit

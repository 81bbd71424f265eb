#include "core/library/ollamamanifest.h"

#include "core/common/utf8path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace llamafit {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kModelMediaType = "application/vnd.ollama.image.model";
constexpr std::string_view kProjectorMediaType = "application/vnd.ollama.image.projector";

bool validDigest(const std::string& digest) {
    constexpr std::string_view prefix = "sha256:";
    if (digest.size() <= prefix.size() || digest.compare(0, prefix.size(), prefix) != 0) {
        return false;
    }
    return std::all_of(digest.begin() + static_cast<std::ptrdiff_t>(prefix.size()), digest.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The sub-folders (or, at the last level, the files) of `dir`, sorted; errors recorded.
std::vector<fs::path> children(const fs::path& dir, bool wantDirectories, std::vector<Error>& errors) {
    std::vector<fs::path> out;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
        errors.push_back(makeError("library.unreadable-folder",
                                   "cannot read folder " + utf8FromPath(dir) + ": " + ec.message()));
        return out;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        std::error_code typeError;
        const bool isDirectory = it->is_directory(typeError);
        const bool isFile = it->is_regular_file(typeError);
        if (wantDirectories ? isDirectory : isFile) {
            out.push_back(it->path());
        }
    }
    if (ec) {
        errors.push_back(makeError("library.unreadable-folder", "cannot finish reading folder " +
                                                                    utf8FromPath(dir) + ": " + ec.message()));
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

Result<OllamaManifest> parseOllamaManifest(std::string_view json) {
    const auto document = nlohmann::json::parse(json, nullptr, false);
    if (document.is_discarded() || !document.is_object()) {
        return makeError("library.bad-manifest", "the Ollama manifest is not a JSON object");
    }
    const auto layers = document.find("layers");
    if (layers == document.end() || !layers->is_array()) {
        return makeError("library.bad-manifest", "the Ollama manifest has no \"layers\" array");
    }
    OllamaManifest manifest;
    for (const auto& layer : *layers) {
        if (!layer.is_object()) {
            continue;
        }
        const auto mediaType = layer.find("mediaType");
        const auto digest = layer.find("digest");
        if (mediaType == layer.end() || !mediaType->is_string() || digest == layer.end() ||
            !digest->is_string()) {
            continue;
        }
        const std::string type = mediaType->get<std::string>();
        const std::string value = digest->get<std::string>();
        if (type != kModelMediaType && type != kProjectorMediaType) {
            continue; // template, params, license, system prompt ...
        }
        if (!validDigest(value)) {
            return makeError("library.bad-manifest", "the Ollama manifest names the blob \"" + value +
                                                         "\", not sha256:<lower-case hex>");
        }
        if (type == kModelMediaType) {
            manifest.modelDigest = value;
        } else {
            manifest.projectorDigests.push_back(value);
        }
    }
    if (manifest.modelDigest.empty()) {
        return makeError("library.bad-manifest", std::string("the Ollama manifest has no layer of type ") +
                                                     std::string(kModelMediaType));
    }
    return manifest;
}

std::string ollamaBlobPath(const std::string& modelsRoot, const std::string& digest) {
    std::string file = digest;
    std::replace(file.begin(), file.end(), ':', '-');
    // With the platform's separators, as the library lists every other path.
    return utf8FromPath((pathFromUtf8(modelsRoot) / "blobs" / file).make_preferred());
}

std::string ollamaModelName(const std::string& host, const std::string& nameSpace, const std::string& model,
                            const std::string& tag) {
    std::string name = model + ":" + tag;
    if (host != "registry.ollama.ai") {
        return host + "/" + nameSpace + "/" + name;
    }
    return nameSpace == "library" ? name : nameSpace + "/" + name;
}

std::vector<OllamaManifestFile> findOllamaManifests(const std::string& modelsRoot, std::vector<Error>& errors,
                                                    std::stop_token stop) {
    std::vector<OllamaManifestFile> found;
    const fs::path manifests = pathFromUtf8(modelsRoot) / "manifests";
    std::error_code ec;
    if (!fs::is_directory(manifests, ec)) {
        return found;
    }
    for (const auto& host : children(manifests, true, errors)) {
        for (const auto& nameSpace : children(host, true, errors)) {
            for (const auto& model : children(nameSpace, true, errors)) {
                if (stop.stop_requested()) {
                    return found;
                }
                for (const auto& tag : children(model, false, errors)) {
                    found.push_back(
                        {utf8FromPath(tag),
                         ollamaModelName(utf8FromPath(host.filename()), utf8FromPath(nameSpace.filename()),
                                         utf8FromPath(model.filename()), utf8FromPath(tag.filename()))});
                }
            }
        }
    }
    return found;
}

} // namespace llamafit

#pragma once
// Ollama's model store: manifests/<host>/<namespace>/<model>/<tag> (JSON, OCI-like) naming
// blobs/sha256-<hex>; the blob of the layer with mediaType application/vnd.ollama.image.model
// is a plain GGUF file (Ollama passes it to llama-server --model, ollama/ollama#18123), the
// application/vnd.ollama.image.projector layer is the multimodal projector (mmproj).
// Used by the library scan (libraryscan.h) on its worker thread. Pure parsing plus a small
// directory walk; no exceptions escape.
//
// Error codes: library.bad-manifest (not JSON, no layers, no model layer, bad digest),
// library.unreadable-folder (a manifests folder that cannot be listed).

#include "core/common/result.h"

#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct OllamaManifest {
    std::string modelDigest;                   // "sha256:<hex>"
    std::vector<std::string> projectorDigests; // "sha256:<hex>"
    bool operator==(const OllamaManifest&) const = default;
};

Result<OllamaManifest> parseOllamaManifest(std::string_view json);

// "<modelsRoot>/blobs/sha256-<hex>" for "sha256:<hex>" (Ollama's file name uses '-').
std::string ollamaBlobPath(const std::string& modelsRoot, const std::string& digest);

// "model:tag" for registry.ollama.ai/library; "namespace/model:tag" for other namespaces;
// "host/namespace/model:tag" for other registries (how `ollama list` spells them).
std::string ollamaModelName(const std::string& host, const std::string& nameSpace, const std::string& model,
                            const std::string& tag);

struct OllamaManifestFile {
    std::string path; // manifests/<host>/<namespace>/<model>/<tag>
    std::string name; // ollamaModelName(...)
};

// Every manifest file under <modelsRoot>/manifests (depth 4), sorted by path. Folders that
// cannot be listed are appended to `errors`; a missing manifests folder is not an error.
std::vector<OllamaManifestFile> findOllamaManifests(const std::string& modelsRoot, std::vector<Error>& errors,
                                                    std::stop_token stop = {});

} // namespace llamafit

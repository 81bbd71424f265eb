// llama.cpp's release builds; see llamarelease.h.

#include "core/server/llamarelease.h"
#include "core/common/asciitext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace llamafit {

namespace {

using Json = nlohmann::json;

Error badRelease(const std::string& what) {
    return makeError("release.bad-response", "the release listing " + what);
}

bool isHex64(std::string_view text) {
    return text.size() == 64 &&
           std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

bool endsWithArchive(std::string_view name) {
    return name.ends_with(".zip") || name.ends_with(".tar.gz");
}

// The asset named "<prefix><middle>-<cpu>.<zip|tar.gz>", where `middle` may be any of `middles`
// (tried in order); nullptr when none is listed with a digest.
const ReleaseAsset* findAsset(const LlamaRelease& release, const std::string& prefix,
                              const std::vector<std::string>& middles, std::string_view cpu) {
    for (const std::string& middle : middles) {
        for (const ReleaseAsset& asset : release.assets) {
            const std::string stem = prefix + middle + "-" + std::string(cpu);
            if ((asset.name == stem + ".zip" || asset.name == stem + ".tar.gz") && !asset.sha256.empty()) {
                return &asset;
            }
        }
    }
    return nullptr;
}

} // namespace

Result<LlamaRelease> parseLlamaRelease(std::string_view text) {
    const Json json = Json::parse(text.begin(), text.end(), nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return badRelease("is not a JSON object");
    }
    LlamaRelease release;
    if (!json.contains("tag_name") || !json["tag_name"].is_string()) {
        return badRelease("has no tag_name");
    }
    release.tag = json["tag_name"].get<std::string>();
    if (release.tag.size() > 1 && release.tag.front() == 'b' &&
        std::all_of(release.tag.begin() + 1, release.tag.end(),
                    [](unsigned char c) { return std::isdigit(c); }) &&
        release.tag.size() < 11) {
        release.buildNumber = static_cast<std::uint32_t>(std::stoul(release.tag.substr(1)));
    }
    if (!json.contains("assets") || !json["assets"].is_array()) {
        return badRelease("has no assets");
    }
    for (const Json& entry : json["assets"]) {
        if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() ||
            !entry.contains("browser_download_url") || !entry["browser_download_url"].is_string()) {
            return badRelease("holds an asset without a name or URL");
        }
        ReleaseAsset asset;
        asset.name = entry["name"].get<std::string>();
        asset.url = entry["browser_download_url"].get<std::string>();
        if (asset.name.empty() || asset.name.find_first_of("/\\") != std::string::npos || asset.name == "." ||
            asset.name == ".." || !(asset.url.starts_with("https://") || asset.url.starts_with("http://"))) {
            return badRelease("holds an asset named '" + asset.name.substr(0, 100) +
                              "', which is not a file name");
        }
        asset.size = entry.contains("size") && entry["size"].is_number_unsigned()
                         ? entry["size"].get<std::uint64_t>()
                         : 0;
        if (entry.contains("digest") && entry["digest"].is_string()) {
            const std::string digest = entry["digest"].get<std::string>();
            if (!digest.starts_with("sha256:") || !isHex64(std::string_view(digest).substr(7))) {
                return badRelease("gives " + asset.name + " a digest that is not sha256:<64 hex digits>");
            }
            asset.sha256 = asciiLower(digest.substr(7));
        }
        release.assets.push_back(std::move(asset));
    }
    return release;
}

std::string_view engineBackendName(EngineBackend backend) {
    switch (backend) {
    case EngineBackend::Cpu:
        return "cpu";
    case EngineBackend::Vulkan:
        return "vulkan";
    case EngineBackend::Cuda:
        return "cuda";
    case EngineBackend::Hip:
        return "hip";
    case EngineBackend::Metal:
        return "metal";
    }
    return "cpu";
}

std::optional<EngineBackend> parseEngineBackend(std::string_view name) {
    for (EngineBackend backend : {EngineBackend::Cpu, EngineBackend::Vulkan, EngineBackend::Cuda,
                                  EngineBackend::Hip, EngineBackend::Metal}) {
        if (engineBackendName(backend) == asciiLower(std::string(name))) {
            return backend;
        }
    }
    return std::nullopt;
}

Result<EngineAssets> chooseEngineAssets(const LlamaRelease& release, OsKind os, std::string_view cpu,
                                        EngineBackend backend) {
    const std::string prefix = "llama-" + release.tag + "-bin-";
    const ReleaseAsset* archive = nullptr;
    std::optional<ReleaseAsset> runtime;
    switch (os) {
    case OsKind::Linux:
        if (backend == EngineBackend::Cpu) {
            archive = findAsset(release, prefix, {"ubuntu"}, cpu);
        } else if (backend == EngineBackend::Vulkan) {
            archive = findAsset(release, prefix, {"ubuntu-vulkan"}, cpu);
        }
        break;
    case OsKind::MacOs:
        // One build per CPU; Apple silicon's carries Metal.
        if (backend == EngineBackend::Cpu || (backend == EngineBackend::Metal && cpu == "arm64")) {
            archive = findAsset(release, prefix, {"macos"}, cpu);
        }
        break;
    case OsKind::Windows:
        if (backend == EngineBackend::Cpu) {
            archive = findAsset(release, prefix, {"win-cpu", "win-avx2"}, cpu);
        } else if (backend == EngineBackend::Vulkan) {
            archive = findAsset(release, prefix, {"win-vulkan"}, cpu);
        } else if (backend == EngineBackend::Hip) {
            archive = findAsset(release, prefix, {"win-hip-radeon"}, cpu);
        } else if (backend == EngineBackend::Cuda) {
            // win-cuda-<version>: the oldest version listed (lexical order of "12.4" < "13.1").
            std::vector<std::string> versions;
            const std::string cudaPrefix = prefix + "win-cuda-";
            for (const ReleaseAsset& asset : release.assets) {
                const std::string suffix = "-" + std::string(cpu);
                if (asset.name.starts_with(cudaPrefix) && endsWithArchive(asset.name)) {
                    const std::string rest = asset.name.substr(cudaPrefix.size());
                    const std::size_t end = rest.find(suffix);
                    if (end != std::string::npos) {
                        versions.push_back(rest.substr(0, end));
                    }
                }
            }
            std::sort(versions.begin(), versions.end());
            for (const std::string& version : versions) {
                archive = findAsset(release, prefix, {"win-cuda-" + version}, cpu);
                const ReleaseAsset* cudart =
                    findAsset(release, "cudart-llama-bin-", {"win-cuda-" + version}, cpu);
                if (archive && cudart) {
                    runtime = *cudart;
                    break;
                }
                archive = nullptr;
            }
        }
        break;
    case OsKind::Unknown:
        break;
    }
    if (archive == nullptr) {
        return makeError("release.no-asset", "llama.cpp " + release.tag + " has no " +
                                                 std::string(engineBackendName(backend)) +
                                                 " build for this system (" + std::string(cpu) +
                                                 ") with a published sha256 digest");
    }
    return EngineAssets{*archive, runtime};
}

} // namespace llamafit

#pragma once
// llama.cpp's official release builds, as GitHub's releases API lists them
// (GET https://api.github.com/repos/ggml-org/llama.cpp/releases/latest): the tag (b11669), and
// per asset its name, size, download URL and the sha256 GitHub publishes as "digest". Which
// asset runs on this machine is decided from the names llama.cpp's release workflow gives them:
//   llama-<tag>-bin-ubuntu-x64.tar.gz, llama-<tag>-bin-ubuntu-vulkan-x64.tar.gz (older: .zip),
//   llama-<tag>-bin-macos-arm64.tar.gz (Metal inside), llama-<tag>-bin-win-cpu-x64.zip,
//   llama-<tag>-bin-win-vulkan-x64.zip, llama-<tag>-bin-win-hip-radeon-x64.zip,
//   llama-<tag>-bin-win-cuda-<ver>-x64.zip with its runtime cudart-llama-bin-win-cuda-<ver>-x64.zip.
// An asset without a sha256 digest is never chosen: nothing runs that did not match its digest.
// Pure functions over the JSON text.
//
// Error codes: release.bad-response (not a release, an asset name that is a path, a digest that is
// not a sha256), release.no-asset (no build for this OS, CPU and backend, or none with a digest).

#include "core/common/result.h"
#include "core/machine/memorypools.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

inline constexpr std::string_view kLlamaReleasesLatestUrl =
    "https://api.github.com/repos/ggml-org/llama.cpp/releases/latest";

struct ReleaseAsset {
    std::string name;
    std::string url; // browser_download_url
    std::uint64_t size = 0;
    std::string sha256; // from "digest": "sha256:<hex>"; "" when GitHub gives none
    bool operator==(const ReleaseAsset&) const = default;
};

struct LlamaRelease {
    std::string tag;                          // "b11669"
    std::optional<std::uint32_t> buildNumber; // 11669
    std::vector<ReleaseAsset> assets;
};

Result<LlamaRelease> parseLlamaRelease(std::string_view json);

enum class EngineBackend { Cpu, Vulkan, Cuda, Hip, Metal };

// "cpu", "vulkan", "cuda", "hip", "metal"; parseEngineBackend reads the same words.
std::string_view engineBackendName(EngineBackend backend);
std::optional<EngineBackend> parseEngineBackend(std::string_view name);

struct EngineAssets {
    ReleaseAsset archive;
    std::optional<ReleaseAsset> runtime; // CUDA on Windows: the cudart archive to unpack beside it
};

// The build for `os` on `cpu` ("x64" or "arm64") with `backend`. For CUDA the oldest CUDA
// version the release offers is taken: it runs on the most drivers.
Result<EngineAssets> chooseEngineAssets(const LlamaRelease& release, OsKind os, std::string_view cpu,
                                        EngineBackend backend);

} // namespace llamafit

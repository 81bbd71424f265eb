#pragma once
// LayerPlacement: which device runs each block, the output layer and the input layer, as
// llama.cpp assigns them from -ngl and -ts (src/llama-model.cpp load_tensors). Internal to
// core/sizing: the weight, KV, RS and compute-buffer sizers all read it. Device index -1 is
// the host CPU, 0..n-1 index the GpuDevice list. Also names the host buffer types that depend
// on the GPUs present (pinned host buffers, mmap).

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

inline constexpr int kHostDevice = -1;

struct LayerPlacement {
    std::vector<int> layerDevice; // one per block (NextN blocks included): kHostDevice or a GPU index
    int outputDevice = kHostDevice;
    std::uint32_t gpuLayers = 0; // blocks plus the output layer placed on GPUs
    bool operator==(const LayerPlacement&) const = default;
};

Result<LayerPlacement> placeLayers(const ModelInfo& model, const ServerSettings& settings,
                                   const std::vector<GpuDevice>& gpus);

// The host-pinned buffer type of the first GPU whose backend has one ("CUDA_Host",
// "Vulkan_Host", "ROCm_Host"), which llama.cpp prefers for host weights, the CPU compute
// buffer and the output buffer; nullopt for CPU-only runs and Metal/other backends.
std::optional<std::string> pinnedHostBufferType(const std::vector<GpuDevice>& gpus);

// Whether the weights are memory-mapped: -lm mmap, or -lm auto unless a device refuses mmap
// (ggml-vulkan reports mmap_support=false for integrated GPUs).
bool weightsMapped(const ServerSettings& settings, const std::vector<GpuDevice>& gpus);

} // namespace llamafit

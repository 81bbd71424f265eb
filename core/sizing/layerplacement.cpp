// Layer -> device assignment. Restates llama.cpp src/llama-model.cpp load_tensors
// (get_layer_buft_list and the split computation) and make_cpu_buft_list.
#include "core/sizing/layerplacement.h"

#include "core/sizing/tensorsplit.h"

#include <algorithm>
#include <string>

namespace llamafit {
namespace {

// llama-model.cpp: "sum and normalize the splits to get the split points", from each device's
// share (tensorsplit.h: -ts, or without it the memory the user gave for the GPU). float, like
// llama.cpp, so the upper_bound below lands on the same device at the edges.
std::vector<float> splitPoints(const ServerSettings& settings, const std::vector<GpuDevice>& gpus) {
    const DeviceShares shares = deviceSplitShares(settings.tensorSplit, gpus);
    std::vector<float> splits(gpus.size(), 0.0f);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        splits[i] = static_cast<float>(shares.shares[i]);
    }
    float sum = 0.0f;
    for (auto& split : splits) {
        sum += split;
        split = sum;
    }
    if (!(sum > 0.0f)) {
        // No memory figures at all (llama.cpp would fall back to the host's): split evenly.
        for (std::size_t i = 0; i < splits.size(); ++i) {
            splits[i] = static_cast<float>(i + 1);
        }
        sum = static_cast<float>(splits.size());
    }
    for (auto& split : splits) {
        split /= sum;
    }
    return splits;
}

} // namespace

Result<LayerPlacement> placeLayers(const ModelInfo& model, const ServerSettings& settings,
                                   const std::vector<GpuDevice>& gpus) {
    LayerPlacement placement;
    const int layerCount = static_cast<int>(model.blockCount);
    placement.layerDevice.assign(model.blockCount, kHostDevice);
    if (gpus.empty()) {
        return placement; // llama-model.cpp: act_gpu_layers = 0 without devices
    }
    for (double share : settings.tensorSplit) {
        if (share < 0.0) {
            return makeError("settings.bad-value", "-ts entries must not be negative",
                             {Setting::TensorSplit});
        }
    }
    const std::vector<float> splits = splitPoints(settings, gpus);

    // llama_model::n_gpu_layers(): auto and all both mean every layer plus output; --fit may
    // lower auto, which the estimate does not model.
    const int gpuLayers =
        static_cast<int>(std::min<std::uint32_t>(settings.gpuLayers.value_or(GpuLayers::automatic())
                                                     .requestedLayers(static_cast<std::uint32_t>(layerCount)),
                                                 static_cast<std::uint32_t>(layerCount) + 1));
    // -ngl counts the output layer first: layer il is on a GPU iff il >= n_layer + 1 - ngl.
    const int gpuStart = std::max(layerCount + 1 - gpuLayers, 0);
    const int active = std::min(gpuLayers, layerCount + 1);
    auto deviceOf = [&](int il) {
        if (il < gpuStart || il - gpuStart >= active) {
            return kHostDevice;
        }
        const float position = static_cast<float>(il - gpuStart) / static_cast<float>(active);
        const auto it = std::upper_bound(splits.begin(), splits.end(), position);
        const int device = static_cast<int>(it - splits.begin());
        return std::min(device, static_cast<int>(gpus.size()) - 1);
    };
    for (int il = 0; il < layerCount; ++il) {
        placement.layerDevice[static_cast<std::size_t>(il)] = deviceOf(il);
        placement.gpuLayers += placement.layerDevice[static_cast<std::size_t>(il)] != kHostDevice ? 1 : 0;
    }
    // The output layer is "layer n_layer" in the same rule, so it is on a GPU iff ngl >= 1.
    placement.outputDevice = deviceOf(layerCount);
    placement.gpuLayers += placement.outputDevice != kHostDevice ? 1 : 0;
    return placement;
}

std::optional<std::string> pinnedHostBufferType(const std::vector<GpuDevice>& gpus) {
    // llama-model.cpp make_cpu_buft_list: "generally, this will be done using the first device
    // in the list" -- the first device that has a host buffer type. Metal has none (its memory
    // is shared already); CUDA, ROCm (HIP builds name it ROCm) and Vulkan do.
    for (const auto& gpu : gpus) {
        switch (gpu.backend) {
        case Backend::Cuda:
            return std::string("CUDA_Host");
        case Backend::Rocm:
            return std::string("ROCm_Host");
        case Backend::Vulkan:
            return std::string("Vulkan_Host");
        case Backend::Cpu:
        case Backend::Metal:
        case Backend::Rpc: // ggml-rpc.cpp: get_host_buffer_type is NULL
        case Backend::Other:
            break;
        }
    }
    return std::nullopt;
}

bool weightsMapped(const ServerSettings& settings, const std::vector<GpuDevice>& gpus) {
    switch (settings.loadMode) {
    case LoadMode::Mmap:
        return true;
    case LoadMode::None:
        return false;
    case LoadMode::Auto:
        break;
    }
    // llama-model.cpp load_tensors: with -lm auto, any device without mmap_support turns mmap
    // off; ggml-vulkan.cpp sets mmap_support=false for integrated GPUs.
    return std::none_of(gpus.begin(), gpus.end(), [](const GpuDevice& gpu) {
        return gpu.backend == Backend::Vulkan && gpu.integrated;
    });
}

} // namespace llamafit

// LoRA adapter buffers; see lorabuffers.h for the rule and its llama.cpp source.
#include "core/sizing/lorabuffers.h"

#include "core/common/units.h"

#include <map>

namespace llamafit {

std::vector<LoraBuffer> loraBuffers(const std::vector<LoraAdapterInfo>& adapters,
                                    const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                                    const LayerPlacement& layers) {
    std::vector<LoraBuffer> buffers;
    for (const LoraAdapterInfo& adapter : adapters) {
        std::map<int, std::uint64_t> bytesByDevice;
        for (const TensorSummary& tensor : adapter.tensors) {
            // A tensor of block il lives where that block's weights do; the others (token_embd,
            // output) follow the input layer (host) or the output layer.
            int device = kHostDevice;
            if (tensor.layer >= 0 && static_cast<std::size_t>(tensor.layer) < layers.layerDevice.size()) {
                device = layers.layerDevice[static_cast<std::size_t>(tensor.layer)];
            } else if (tensor.role == TensorRole::Output) {
                device = layers.outputDevice;
            }
            bytesByDevice[device] += padTo(tensor.bytes, adapter.alignment);
        }
        for (const auto& [device, bytes] : bytesByDevice) {
            const std::string hostType = settings.loadMode == LoadMode::None ? "CPU" : "CPU_Mapped";
            buffers.push_back({device,
                               device == kHostDevice ? hostType : gpus[static_cast<std::size_t>(device)].name,
                               bytes, adapter.path});
        }
    }
    return buffers;
}

} // namespace llamafit

#pragma once
// The LoRA adapters' weight buffers (--lora, --lora-scaled), as llama.cpp 0.7.0 allocates them:
// src/llama-adapter.cpp llama_adapter_lora_init_impl gives each adapter tensor the buffer type of
// the model weight it adapts (the device of that weight's layer), one buffer per buffer type,
// logged as "llama_adapter_lora_init_impl: CPU_Mapped LoRA buffer size = N MiB"; on the host the
// adapter file is memory-mapped like the model (CPU_Mapped), else copied (CPU with -lm none).
// The scale does not change memory. Used by estimator.cpp; pure, bytes.

#include "core/model/loraadapter.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

struct LoraBuffer {
    int device = kHostDevice; // kHostDevice or a GPU index
    std::string bufferType;   // "CPU_Mapped", "CPU", or the GPU's name
    std::uint64_t bytes = 0;
    std::string adapterPath;
};

// One buffer per adapter and device that holds some of its tensors, in adapter order.
std::vector<LoraBuffer> loraBuffers(const std::vector<LoraAdapterInfo>& adapters,
                                    const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                                    const LayerPlacement& layers);

} // namespace llamafit

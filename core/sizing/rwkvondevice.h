#pragma once
// An RWKV-7 model (rwkv7) whose blocks all sit on one Vulkan GPU: the GPU's compute buffer. ggml-vulkan
// reorders the whole-model split's nodes, so the block's tensors fall in other holes than the CPU plan's
// (rwkv7replay.cpp): the closed form missed by 5 %. The first block keeps its value as v_first, which every
// later block mixes in and the last one frees; each block takes the next one's state and token-shift rows
// during its channel mix. Read tensor by tensor from the server's own plan on lavapipe
// (scripts/alloc-plan/run-case.sh rwkv7_ngl_all_np1_faon: "Vulkan0 compute buffer size = 30.19 MiB").
// Graph: src/models/rwkv7.cpp, rwkv7-base.cpp. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/sizing/recurrentcompute.h"

#include <cstdint>

namespace llamafit {

// `blocks` = the model's block count; `outputs` = the output rows the reserve asks for.
std::uint64_t rwkv7DeviceComputeBytes(const RecurrentBlockShape& shape, std::uint32_t blocks,
                                      std::uint32_t ubatchTokens, std::uint32_t sequences,
                                      std::uint32_t outputs);

} // namespace llamafit

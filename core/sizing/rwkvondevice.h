#pragma once
// An RWKV-7 or RWKV-6 model whose blocks all sit on one Vulkan GPU: the GPU's compute buffer. ggml-vulkan
// reorders the whole-model split's nodes, so the block's tensors fall in other holes than the CPU plan's
// (rwkv7replay.cpp): the closed form missed by 5 %. The first block keeps its value as v_first, which every
// later block mixes in and the last one frees; each block takes the next one's state and token-shift rows
// during its channel mix. Read tensor by tensor from the server's own plan on lavapipe
// (scripts/alloc-plan/run-case.sh rwkv7_ngl_all_np1_faon: "Vulkan0 compute buffer size = 30.19 MiB").
// Graph: src/models/rwkv7.cpp, rwkv7-base.cpp. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>

namespace llamafit {

// `blocks` = the model's block count; `outputs` = the output rows the reserve asks for.
std::uint64_t rwkv7DeviceComputeBytes(const RecurrentBlockShape& shape, std::uint32_t blocks,
                                      std::uint32_t ubatchTokens, std::uint32_t sequences,
                                      std::uint32_t outputs);

// RWKV-6 (rwkv6) likewise: its blocks' u (time_mix_first) stays in host memory and is copied in for
// each block's wkv6 op. Read from rwkv6_l8_ngl_all_np1_faon's plan ("Vulkan0 compute buffer size =
// 56.50 MiB"). Graph: src/models/rwkv6.cpp, rwkv6-base.cpp.
struct Rwkv6Shape {
    std::uint64_t embd = 0;
    std::uint64_t headSize = 0;
    std::uint64_t lerpLora = 0;    // time_mix_w1's rows: the five lerps' LoRA rank, times five
    std::uint64_t decayLora = 0;   // time_mix_decay_w1's rows
    std::uint64_t feedForward = 0; // channel_mix_key's rows
    std::uint64_t bonus = 0;       // time_mix_first's bytes
    std::uint32_t blocks = 0;
};
std::optional<Rwkv6Shape> rwkv6Shape(const ModelInfo& model);
std::uint64_t rwkv6DeviceComputeBytes(const Rwkv6Shape& shape, std::uint32_t ubatchTokens,
                                      std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit

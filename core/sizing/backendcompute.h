#pragma once
// The parts of the closed form's compute buffer (computebuffer.cpp, gpucompute.cpp: what the engine
// does not replay) that depend on the GPU backend or on the llama.cpp generation. Calibrated on public logs
// of real CUDA, ROCm (HIP), Vulkan and Metal GPUs (tests/data/public-logs) and, for the Current generation,
// on llama-server b11669 with Vulkan on lavapipe. Pure functions, bytes.
//
//   CUDA / HIP   flash attention with a quantized K or V: the tile and MMA kernels read f16 copies of
//                the layer's whole K and V view, appended to the FA node's own allocation (from
//                #23907 on; before, they came from the CUDA pool, in no buffer).
//   all          the graph inputs in host memory (embedding rows, KQ masks) by generation.
//   Vulkan/Metal no term of their own: their get_alloc_size is ggml_nbytes, and a Metal buffer is
//                sized like any other (the public Metal logs match the backend-neutral form).

#include "core/gguf/ggmltype.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/serversettings.h"

#include <cstdint>

namespace llamafit {

// The f16 K and V copies a CUDA/HIP flash-attention node reserves for a quantized cache, for the
// cache's widest layer: cells (one stream's, times the streams) x (n_head_kv * (head_dim_k +
// head_dim_v)) values x 2 bytes. Zero for other backends, f16/f32/bf16... caches without FA, and
// generations before June 2026.
std::uint64_t flashAttentionF16CopyBytes(Backend backend, LlamaGeneration generation, bool flashAttention,
                                         GgmlType typeK, GgmlType typeV, std::uint64_t cacheCells,
                                         std::uint64_t widestKvRowValues);

// The bytes of one KQ mask element in host memory (a graph input): f16 under flash attention from
// June 2026 on, else f32.
std::uint64_t hostMaskElementBytes(LlamaGeneration generation, bool flashAttention);

// How many n_embd x n_ubatch f32 rows of graph inputs the host buffer holds beside a GPU.
std::uint64_t hostEmbeddingRows(LlamaGeneration generation);

} // namespace llamafit

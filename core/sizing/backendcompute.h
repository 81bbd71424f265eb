#pragma once
// The parts of a compute buffer that depend on the GPU backend or on the llama.cpp generation, kept
// apart from the backend-neutral closed form of computebuffer.cpp, which calls them. Calibrated on
// public logs of real CUDA, ROCm (HIP), Vulkan and Metal GPUs (tests/data/public-logs). Pure
// functions, bytes.
//
//   CUDA / HIP   flash attention with a quantized K or V: the tile and MMA kernels read f16 copies of
//                the layer's whole K and V view, appended to the FA node's own allocation (Current
//                generation; before llama.cpp PR #23907 they came from the CUDA pool, in no buffer).
//   all          BeforeJune2026: the KQ mask is an f32 graph input (host memory) cast to f16 on the
//                device, so for a moment the device holds an f32 copy and its f16 cast together.
//   Vulkan/Metal no term of their own: their get_alloc_size is ggml_nbytes, and a Metal buffer is
//                sized like any other (the public Metal logs match the backend-neutral form).

#include "core/gguf/ggmltype.h"
#include "core/sizing/serversettings.h"

#include <cstdint>

namespace llamafit {

// The f16 K and V copies a CUDA/HIP flash-attention node reserves for a quantized cache, for the
// cache's widest layer: cells (one stream's, times the streams) x (n_head_kv * (head_dim_k +
// head_dim_v)) values x 2 bytes. Zero for other backends, f16/f32/bf16... caches without FA, and
// the BeforeJune2026 generation.
std::uint64_t flashAttentionF16CopyBytes(Backend backend, GraphReserve generation, bool flashAttention,
                                         GgmlType typeK, GgmlType typeV, std::uint64_t cacheCells,
                                         std::uint64_t widestKvRowValues);

// The bytes of one KQ mask element in host memory (a graph input): f16 under flash attention in the
// Current generation, else f32.
std::uint64_t hostMaskElementBytes(GraphReserve generation, bool flashAttention);

// BeforeJune2026 with flash attention: the device holds the f32 copy of every mask and its f16 cast
// at the start of the graph, before the first layer runs. `maskElements` sums cells x tokens over
// the caches; `earlyBytes` is what else is alive then (the input embeddings' copy and the first
// norm). Zero in the Current generation, where the mask arrives in f16 and needs no cast.
std::uint64_t legacyMaskCastPeakBytes(GraphReserve generation, bool flashAttention,
                                      std::uint64_t maskElements, std::uint64_t earlyBytes);

} // namespace llamafit

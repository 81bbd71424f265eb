#pragma once
// The parts of a compute buffer that depend on the GPU backend or on the llama.cpp generation, kept
// apart from the backend-neutral closed form of computebuffer.cpp and the scheduler rules of
// gpucompute.cpp, which call them. Calibrated on public logs of real CUDA, ROCm (HIP), Vulkan and
// Metal GPUs (tests/data/public-logs) and, for the Current generation, on llama-server b11669 with
// Vulkan on lavapipe. Pure functions, bytes.
//
//   CUDA / HIP   flash attention with a quantized K or V: the tile and MMA kernels read f16 copies of
//                the layer's whole K and V view, appended to the FA node's own allocation (from
//                #23907 on; before, they came from the CUDA pool, in no buffer).
//   all          the graph inputs in host memory (embedding rows, KQ masks) by generation; before
//                June 2026 the f32 mask was cast to f16 on the device, so for a moment the device
//                held an f32 copy and its f16 cast together; before the mixed input a GPU's blocks
//                held one embedding row less and its output stage reused the freed masks.
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

// A GPU's block compute buffer in the generations before the mixed input (not Current, whose rule is
// gpucompute.cpp's): the block activations less the two embedding rows the host holds, the masks
// (device copies of host inputs) beside them; an output stage of the logits and two rows that reuses
// the freed masks; and, before June 2026 with flash attention, the f32 mask copy and its f16 cast
// beside the first block's base. `maskElements` sums cells x tokens over the caches;
// `offloadedWeightBytes` is the host weight op offload copies into the blocks (0 without).
std::uint64_t olderGpuBlockBytes(LlamaGeneration generation, bool flashAttention,
                                 const ComputeBreakdown& block, std::uint64_t embeddingRowBytes,
                                 std::uint64_t maskElements, std::uint64_t widestKvRowBytes,
                                 std::uint64_t offloadedWeightBytes);

} // namespace llamafit

// Backend- and generation-specific compute terms; each cites where llama.cpp does it.
#include "core/sizing/backendcompute.h"

namespace llamafit {

std::uint64_t flashAttentionF16CopyBytes(Backend backend, GraphReserve generation, bool flashAttention,
                                         GgmlType typeK, GgmlType typeV, std::uint64_t cacheCells,
                                         std::uint64_t widestKvRowValues) {
    // ggml/src/ggml-cuda/fattn.cu ggml_cuda_flash_attn_ext_get_alloc_size: the tile and MMA kernels
    // (chosen for any batch of more than two tokens, so always at reserve) need f16 K and V; for a
    // quantized cache the FA node's allocation grows by ggml_nelements(K) + ggml_nelements(V) halves
    // (ggml-cuda.cu ggml_backend_cuda_buffer_type_get_alloc_size). ggml-hip builds the same sources.
    // Before llama.cpp PR #23907 (2026-05-30) launch_fattn took them from the CUDA pool instead.
    const bool cudaLike = backend == Backend::Cuda || backend == Backend::Rocm;
    const bool quantized = ggmlTypeTraits(typeK).quantized || ggmlTypeTraits(typeV).quantized;
    if (!cudaLike || !flashAttention || !quantized || generation != GraphReserve::Current) {
        return 0;
    }
    return cacheCells * widestKvRowValues * 2;
}

std::uint64_t hostMaskElementBytes(GraphReserve generation, bool flashAttention) {
    // src/llama-graph.cpp build_attn_inp_kq_mask: an f16 input under flash attention since llama.cpp
    // PR #23764 (2026-05-27); before, an f32 input that ggml_cast turned into f16 for the FA node.
    // Graph inputs are assigned to the last backend, the CPU (ggml-backend.cpp
    // ggml_backend_sched_backend_id_from_cur, "1.inp"), so the mask lives in host memory.
    return flashAttention && generation == GraphReserve::Current ? 2 : 4;
}

std::uint64_t legacyMaskCastPeakBytes(GraphReserve generation, bool flashAttention,
                                      std::uint64_t maskElements, std::uint64_t earlyBytes) {
    // The cast runs on the device that runs the first FA node, so the scheduler copies the f32 input
    // there (a split input, ggml-backend.cpp ggml_backend_sched_split_graph) and the f16 result sits
    // next to it until the copy is freed.
    if (generation != GraphReserve::BeforeJune2026 || !flashAttention) {
        return 0;
    }
    return maskElements * (4 + 2) + earlyBytes;
}

} // namespace llamafit

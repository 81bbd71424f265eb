// Backend- and generation-specific compute terms; each cites where llama.cpp does it.
#include "core/sizing/backendcompute.h"

#include <algorithm>

namespace llamafit {

std::uint64_t flashAttentionF16CopyBytes(Backend backend, LlamaGeneration generation, bool flashAttention,
                                         GgmlType typeK, GgmlType typeV, std::uint64_t cacheCells,
                                         std::uint64_t widestKvRowValues) {
    // ggml/src/ggml-cuda/fattn.cu ggml_cuda_flash_attn_ext_get_alloc_size: the tile and MMA kernels
    // (chosen for any batch of more than two tokens, so always at reserve) need f16 K and V; for a
    // quantized cache the FA node's allocation grows by ggml_nelements(K) + ggml_nelements(V) halves
    // (ggml-cuda.cu ggml_backend_cuda_buffer_type_get_alloc_size). ggml-hip builds the same sources.
    // Before llama.cpp PR #23907 (2026-05-30) launch_fattn took them from the CUDA pool instead.
    const bool cudaLike = backend == Backend::Cuda || backend == Backend::Rocm;
    const bool quantized = ggmlTypeTraits(typeK).quantized || ggmlTypeTraits(typeV).quantized;
    const bool inBuffer =
        generation == LlamaGeneration::Current || generation == LlamaGeneration::BeforeMixedInput;
    if (!cudaLike || !flashAttention || !quantized || !inBuffer) {
        return 0;
    }
    return cacheCells * widestKvRowValues * 2;
}

std::uint64_t hostMaskElementBytes(LlamaGeneration generation, bool flashAttention) {
    // src/llama-graph.cpp build_attn_inp_kq_mask: an f16 input under flash attention since llama.cpp
    // PR #23764 (2026-05-27); before, an f32 input that ggml_cast turned into f16 for the FA node.
    // Graph inputs are assigned to the last backend, the CPU (ggml-backend.cpp
    // ggml_backend_sched_backend_id_from_cur, "1.inp"), so the mask lives in host memory.
    const bool f16Input =
        generation == LlamaGeneration::Current || generation == LlamaGeneration::BeforeMixedInput;
    return flashAttention && f16Input ? 2 : 4;
}

std::uint64_t hostEmbeddingRows(LlamaGeneration generation) {
    // src/llama-graph.cpp build_inp_embd. Before PR #18550 the graph held either the token lookup or
    // the embeddings input (1 row, b7146). #18550 put both in every graph and selects one by the
    // batch (ggml_build_forward_select): the lookup and the inp_embd input (2 rows, b7972 to b11151).
    // The Current build adds the mixed token/embedding path and its mix (4 rows, measured on
    // lavapipe b11669 and on a CUDA log of 2026-10).
    switch (generation) {
    case LlamaGeneration::Current:
        return 4;
    case LlamaGeneration::BeforeMixedInput:
    case LlamaGeneration::BeforeJune2026:
        return 2;
    case LlamaGeneration::BeforeInputSelect:
        return 1;
    }
    return 4;
}

} // namespace llamafit

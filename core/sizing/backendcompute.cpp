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

std::uint64_t olderGpuBlockBytes(LlamaGeneration generation, bool flashAttention,
                                 const ComputeBreakdown& block, std::uint64_t embeddingRowBytes,
                                 std::uint64_t maskElements, std::uint64_t widestKvRowBytes,
                                 std::uint64_t offloadedWeightBytes) {
    // The widths' base counts two embedding rows per token that live in host memory as graph inputs.
    const std::uint64_t activations =
        std::max({block.feedForwardBytes, block.attentionBytes, block.recurrentBytes});
    const std::uint64_t onHost = 2 * embeddingRowBytes;
    const std::uint64_t blocks = (activations > onHost ? activations - onHost : 0) + block.maskBytes +
                                 block.gpuExtraBytes + offloadedWeightBytes;
    // On a GPU the masks are copies of host inputs, freed after the last layer: the logits and the
    // last hidden state with its norm reuse their blocks (measured on every public log of a build that
    // reserves a logits row per ubatch token: logits + 1 to 2 rows).
    const std::uint64_t outputStage = block.logitsBytes + 2 * embeddingRowBytes;
    // Before PR #23764 the scheduler copies the f32 mask input to the device running the first FA node
    // (ggml-backend.cpp ggml_backend_sched_split_graph, a split input) and its f16 cast sits next to it,
    // beside the input embeddings' copy, the first norm and one layer's K and V.
    std::uint64_t castPeak = 0;
    if (flashAttention &&
        (generation == LlamaGeneration::BeforeJune2026 || generation == LlamaGeneration::BeforeInputSelect)) {
        castPeak = maskElements * (4 + 2) + 5 * embeddingRowBytes + widestKvRowBytes;
    }
    return std::max({blocks, outputStage, castPeak}) + block.inputBytes;
}

} // namespace llamafit

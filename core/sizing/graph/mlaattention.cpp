// LlmGraph's attention over a K-only cache: llama.cpp b11669 src/llama-graph.cpp
// build_attn_inp_k / build_attn(llm_graph_input_attn_k *) and the build_attn_mha they end in, with
// the v_mla decompression of multi-head latent attention (src/models/deepseek2.cpp). The cache's
// graph hooks restate src/llama-kv-cache.cpp (cpy_k, get_k). See llmgraph.h.
#include "core/sizing/graph/llmgraph.h"

namespace llamafit::graph {
namespace {

std::uint64_t rowBytes(GgmlType type, std::int64_t values) {
    return ggmlRowBytes(type, static_cast<std::uint64_t>(values));
}

} // namespace

const LlmGraph::KvInputs& LlmGraph::keyOnlyInputs() {
    if (m_keyOnlyInputs) {
        return *m_keyOnlyInputs;
    }
    // build_attn_inp_k_impl: the K store indices and the mask over the whole cache per stream
    // (kqMask); a K-only cache has no sliding window ("Use llama_kv_cache_iswa for
    // SWA"), no V indices and, in this generation, no rotation input.
    GraphBuilder& b = m_builder;
    const auto T = static_cast<std::int64_t>(tokens());
    KvInputs inputs;
    inputs.cells = m_params.kvCells;
    inputs.kIndices = b.input(GgmlType::I64, {T, 1, 1, 1}, "attn_inp_k_idxs");
    inputs.mask = kqMask(inputs.cells);
    m_keyOnlyInputs = inputs;
    return *m_keyOnlyInputs;
}

TensorId LlmGraph::attentionKeyOnly(std::uint32_t layer, TensorId q, TensorId k, TensorId v,
                                    TensorId valueDecompression) {
    GraphBuilder& b = m_builder;
    const KvInputs inputs = keyOnlyInputs();
    const LayerInfo& info = m_model.layers.at(layer);
    const auto T = static_cast<std::int64_t>(tokens());
    const auto streams = static_cast<std::int64_t>(m_params.kvStreams);
    const auto cells = static_cast<std::int64_t>(inputs.cells);
    const auto headsKv = static_cast<std::int64_t>(info.headCountKv);
    const auto keyDim = static_cast<std::int64_t>(info.keyHeadDim);
    const GgmlType typeK = m_params.cacheTypeK;

    // build_attn: Q, V, K expanded together ("expand k later to enable rope fusion").
    b.expand(q);
    b.expand(v);
    b.expand(k);

    // llama_kv_cache::cpy_k: the ubatch's K rows into the cache (a streamed cache as one matrix).
    const TensorId keyCache = kvCache(layer, true);
    const TensorId keyRows =
        b.view(k, {keyDim * headsKv, T, 1, 1}, {b[k].nb[2], b[k].nb[2] * T, b[k].nb[2] * T}, 0);
    const TensorId keyTarget =
        streams > 1 ? b.reshape(keyCache, {keyDim * headsKv, cells * streams, 1, 1}) : keyCache;
    b.expand(b.setRows(keyTarget, keyRows, inputs.kIndices));

    // llama_kv_cache::get_k: [head_dim, heads_kv, cells, streams]; build_attn's V is the first
    // v.ne[0] values of each K row, with K's strides.
    const std::uint64_t keyRow = rowBytes(typeK, keyDim * headsKv);
    const TensorId keys =
        b.view(keyCache, {keyDim, headsKv, cells, streams},
               {rowBytes(typeK, keyDim), keyRow, keyRow * static_cast<std::uint64_t>(cells)}, 0);
    const Tensor& keyView = b[keys];
    const TensorId values =
        b.view(keys, {b[v].ne[0], headsKv, cells, streams}, {keyView.nb[1], keyView.nb[2], keyView.nb[3]}, 0);
    // build_attn_mha: V counts as transposed when its head stride exceeds its cell stride.
    const bool transposedV = b[values].nb[1] > b[values].nb[2];

    // build_attn_mha: Q split into streams; Q, K and V permuted to [dim, cells|tokens, heads].
    const Tensor& query = b[q];
    const TensorId queryView =
        b.view(q, {query.ne[0], query.ne[1], query.ne[2] / streams, streams},
               {query.nb[1], query.nb[2], query.nb[3] / static_cast<std::uint64_t>(streams)}, 0);
    const TensorId queries = b.permute(queryView, {0, 2, 1, 3});
    TensorId keysPermuted = b.permute(keys, {0, 2, 1, 3});
    TensorId valuesPermuted = b.permute(values, {0, 2, 1, 3});

    TensorId cur = kNoTensor;
    if (m_params.flashAttention) {
        if (transposedV) {
            valuesPermuted = b.transpose(valuesPermuted);
        }
        // Flash attention reads f16: an f32 K, and V with it, is cast whole, per layer.
        if (b[keysPermuted].type == GgmlType::F32) {
            keysPermuted = b.cast(keysPermuted, GgmlType::F16);
        }
        if (b[valuesPermuted].type == GgmlType::F32) {
            valuesPermuted = b.cast(valuesPermuted, GgmlType::F16);
        }
        const TensorId attended = b.flashAttention(queries, keysPermuted, valuesPermuted, inputs.mask);
        // LLAMA_TENSOR_NAME_FATTN "-" il, read back by resolve_fused_ops (see llmgraph.h).
        b.setName(attended, std::string(kFlashAttentionName) + std::to_string(layer));
        cur = attended;
        if (valueDecompression != kNoTensor) {
            // "It's preferable to do the calculation as a matrix-matrix multiplication with
            // n_tokens in dimension 1": permuted, decompressed, permuted back and made contiguous.
            cur = b.permute(b.mulMat(valueDecompression, b.permute(cur, {0, 2, 1, 3})), {0, 2, 1, 3});
            cur = b.cont(cur, b[cur].ne);
        }
        const Tensor& out = b[cur];
        cur = b.reshape(cur, {out.ne[0] * out.ne[1], out.ne[2] * out.ne[3], 1, 1});
    } else {
        const TensorId logits = b.mulMat(keysPermuted, queries);
        const TensorId scores = b.softMax(logits, inputs.mask);
        if (!transposedV) {
            // "note: avoid this branch": V in rows is transposed and made contiguous.
            const TensorId transposed = b.transpose(valuesPermuted);
            valuesPermuted = b.cont(transposed, b[transposed].ne);
        }
        TensorId mixed = b.mulMat(valuesPermuted, scores);
        // "for MLA with the absorption optimization, we need to decompress from MQA back to MHA".
        if (valueDecompression != kNoTensor) {
            mixed = b.mulMat(valueDecompression, mixed);
        }
        const TensorId permuted = b.permute(mixed, {0, 2, 1, 3});
        const Tensor& out = b[permuted];
        cur = b.cont(permuted, {out.ne[0] * out.ne[1], out.ne[2] * out.ne[3], 1, 1});
        // "all nodes between the KV store and the attention output are run on the CPU" (-nkvo).
        if (!m_params.offloadKqv) {
            b.pin(cur, m_params.cpuBackend);
        }
    }
    b.expand(cur);
    cur = project(blockWeight(layer, "attn_output.weight"), cur);
    return addBias(cur, layer, "attn_output.bias");
}

} // namespace llamafit::graph

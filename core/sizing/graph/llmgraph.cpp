// The shared parts of llama.cpp's model graphs; see llmgraph.h. Each function restates the
// llama.cpp b11669 function named beside it (src/llama-graph.cpp, src/llama-kv-cache.cpp).
#include "core/sizing/graph/llmgraph.h"

#include "core/model/tensorroles.h"
#include "core/sizing/kvrotation.h"

#include <algorithm>

namespace llamafit::graph {
namespace {

std::uint64_t rowBytes(GgmlType type, std::int64_t values) {
    return ggmlRowBytes(type, static_cast<std::uint64_t>(values));
}

} // namespace

std::vector<ReserveShape> reserveShapes(std::uint32_t ubatchTokens, std::uint32_t sequences,
                                        std::uint32_t outputs) {
    const std::uint32_t seqs = std::max<std::uint32_t>(sequences, 1);
    const std::uint32_t promptTokens = (ubatchTokens + seqs - 1) / seqs * seqs;
    // A reserve holds no more output rows than its tokens: n_outputs_pp = min(n_tokens,
    // n_outputs_max) before the rounding, and the token graph one per sequence.
    return {{promptTokens, seqs, std::min(ubatchTokens, outputs)}, {seqs, seqs, std::min(seqs, outputs)}};
}

LlmGraph::LlmGraph(const ModelInfo& model, const GraphParams& params) : m_model(model), m_params(params) {
    // About sixty tensors a layer covers every builder; the scheduler appends a few copies.
    m_builder.reserve(64 * model.layers.size() + 64);
}

TensorId LlmGraph::weight(std::string_view name) {
    if (m_tensorIndex.empty()) {
        m_tensorIndex.reserve(m_model.tensors.size());
        for (std::size_t i = 0; i < m_model.tensors.size(); ++i) {
            m_tensorIndex.emplace(m_model.tensors[i].name, i);
        }
        m_weightLeafs.assign(m_model.tensors.size(), kNoTensor);
    }
    const auto found = m_tensorIndex.find(name);
    if (found == m_tensorIndex.end()) {
        return kNoTensor;
    }
    const std::size_t i = found->second;
    if (m_weightLeafs[i] != kNoTensor) {
        return m_weightLeafs[i];
    }
    // The summary keeps ne[0] and the rows; experts are [ne0, ne1, n_expert], their biases
    // (llama-model.cpp ffn_*_exps_b, gpt-oss) [ne0, n_expert].
    const TensorSummary& tensor = m_model.tensors[i];
    const auto values = static_cast<std::int64_t>(tensor.rowValues);
    const auto rows = static_cast<std::int64_t>(tensor.rows());
    GraphBuilder::Shape ne{values, rows, 1, 1};
    if (tensor.expert && m_model.expertCount > 0 && !name.ends_with(".bias")) {
        ne = {values, rows / m_model.expertCount, m_model.expertCount, 1};
    }
    // llama-model.cpp (deepseek2 and the MLA models on its loader): the split wkv_b is one matrix
    // per head, wk_b {n_embd_head_qk_nope, kv_lora_rank, n_head} and wv_b {kv_lora_rank,
    // n_embd_head_v_mla, n_head}.
    if (tensor.layer >= 0 && static_cast<std::size_t>(tensor.layer) < m_model.layers.size() &&
        (name.ends_with(".attn_k_b.weight") || name.ends_with(".attn_v_b.weight"))) {
        const auto heads =
            static_cast<std::int64_t>(m_model.layers[static_cast<std::size_t>(tensor.layer)].headCount);
        if (heads > 0 && rows % heads == 0) {
            ne = {values, rows / heads, heads, 1};
        }
    }
    const BufferId buffer = m_builder.addBuffer(m_params.weightBuffers.at(i));
    m_weightLeafs[i] = m_builder.leaf(tensor.type, ne, tensor.name, buffer);
    if (!m_params.loraWeights.empty()) {
        m_weightOfLeaf.emplace(m_weightLeafs[i], i);
    }
    return m_weightLeafs[i];
}

TensorId LlmGraph::loraLeaf(const LoraTensor& tensor, const Buffer& buffer) {
    return m_builder.leaf(tensor.type, tensor.ne, tensor.name, m_builder.addBuffer(buffer));
}

std::vector<std::pair<TensorId, TensorId>> LlmGraph::loraPairs(TensorId w) {
    std::vector<std::pair<TensorId, TensorId>> pairs;
    const auto found = m_weightOfLeaf.find(w);
    if (found == m_weightOfLeaf.end()) {
        return pairs; // no adapters, or a copy of a weight (the tied output) no adapter names
    }
    m_loraLeafs.resize(m_params.loraWeights.size(), {kNoTensor, kNoTensor});
    for (std::size_t p = 0; p < m_params.loraWeights.size(); ++p) {
        const LoraWeight& lora = m_params.loraWeights[p];
        if (lora.weight != found->second) {
            continue;
        }
        // llama-adapter.cpp: the adapters' tensors are leafs of their own context, created once.
        if (m_loraLeafs[p].first == kNoTensor) {
            m_loraLeafs[p] = {loraLeaf(lora.a, lora.buffer), loraLeaf(lora.b, lora.buffer)};
        }
        pairs.push_back(m_loraLeafs[p]);
    }
    return pairs;
}

TensorId LlmGraph::project(TensorId w, TensorId x) {
    // llm_graph_context::build_lora_mm: res = w * x; per adapter with a pair for w,
    // res += scale(b * (a * x)) (ggml_scale makes a new tensor; the scale is alpha / rank times
    // the adapter's, which changes no shape).
    GraphBuilder& b = m_builder;
    TensorId res = b.mulMat(w, x);
    for (const auto& [loraA, loraB] : loraPairs(w)) {
        if (b[loraA].ne[0] != b[x].ne[0]) {
            continue; // token_embd's flipped pair where the output reads token_embd: no projection
        }
        res = b.add(res, b.scale(b.mulMat(loraB, b.mulMat(loraA, x))));
    }
    return res;
}

TensorId LlmGraph::projectExperts(TensorId w, TensorId x, TensorId ids) {
    // build_lora_mm_id: as build_lora_mm over the selected experts.
    GraphBuilder& b = m_builder;
    TensorId res = b.mulMatId(w, x, ids);
    for (const auto& [loraA, loraB] : loraPairs(w)) {
        res = b.add(res, b.scale(b.mulMatId(loraB, b.mulMatId(loraA, x, ids), ids)));
    }
    return res;
}

TensorId LlmGraph::blockWeight(std::uint32_t layer, std::string_view suffix) {
    return weight("blk." + std::to_string(layer) + "." + std::string(suffix));
}

TensorId LlmGraph::ropeFactors(std::uint32_t layer) {
    TensorId fileTensor = weight(kRopeFactorsNames[0]);
    if (fileTensor == kNoTensor) {
        fileTensor = weight(kRopeFactorsNames[1]);
    }
    if (fileTensor == kNoTensor || layer >= m_params.ropeFactorBuffers.size()) {
        return fileTensor;
    }
    const Buffer& buffer = m_params.ropeFactorBuffers[layer];
    // The file's tensor is block 0's (tensorroles.h); a later layer in the same buffer type reads it.
    if (m_ropeFactorCopies.empty()) {
        m_ropeFactorCopies.emplace(m_params.ropeFactorBuffers.front().bufferType, fileTensor);
    }
    const auto [copy, created] = m_ropeFactorCopies.try_emplace(buffer.bufferType, kNoTensor);
    if (created) {
        const GgmlType type = m_builder[fileTensor].type;
        const GraphBuilder::Shape ne = m_builder[fileTensor].ne;
        const std::string name = m_builder[fileTensor].name;
        copy->second = m_builder.leaf(type, ne, name, m_builder.addBuffer(buffer));
    }
    return copy->second;
}

TensorId LlmGraph::outputWeight() {
    // llama-model.cpp: a model without output.weight reads token_embd, duplicated on the output
    // device when that is not token_embd's (TENSOR_DUPLICATED).
    if (const TensorId output = weight("output.weight"); output != kNoTensor) {
        return output;
    }
    const TensorId tokens = weight("token_embd.weight");
    if (!m_params.tiedOutputBuffer || tokens == kNoTensor) {
        return tokens;
    }
    if (m_tiedOutput == kNoTensor) {
        const Tensor& embedding = m_builder[tokens];
        m_tiedOutput = m_builder.leaf(embedding.type, embedding.ne, embedding.name,
                                      m_builder.addBuffer(*m_params.tiedOutputBuffer));
    }
    return m_tiedOutput;
}

TensorId LlmGraph::inputEmbeddings() {
    // llm_graph_context::build_inp_embd. The token rows ("embd") are the one computed for a text
    // batch. Since llama.cpp PR #18550 (kInputSelectBuild) the embeddings input is in the graph beside
    // them (ggml_build_forward_select expands both, in that order); b11669 (kMixedInputBuild) adds
    // the mixed input (token rows scattered into a copy of the embeddings) between the two. Before
    // #18550 the graph held the batch's own input only.
    GraphBuilder& b = m_builder;
    const auto T = static_cast<std::int64_t>(tokens());
    const auto embd = static_cast<std::int64_t>(m_model.embeddingLength);
    const TensorId table = weight("token_embd.weight");
    const TensorId tokenIds = b.input(GgmlType::I32, {T, 1, 1, 1}, "inp_tokens");
    TensorId rows = b.getRows(table, tokenIds);
    // build_inp_embd's LoRA branch: per adapter with a token_embd pair (lora_a [rank, n_vocab],
    // lora_b [rank, n_embd]), rows += scale(lora_b * get_rows(lora_a, tokens)).
    for (const auto& [loraA, loraB] : loraPairs(table)) {
        rows = b.add(rows, b.scale(b.mulMat(loraB, b.getRows(loraA, tokenIds))));
    }
    // hparams.n_embd_inp(): a deepstack model's input rows are n_embd x (1 + n_deepstack_layers)
    // wide. The token rows are padded with zeros to that width (b11669 pads both token inputs after
    // both lookups), and the layers read the first n_embd of each row through a view ("embd").
    const std::int64_t inputWidth = embd * (1 + static_cast<std::int64_t>(m_model.deepstackLayers));
    const bool wide = inputWidth != embd;
    if (!wide) {
        b.setName(rows, "embd");
    }
    const auto widen = [&](TensorId x) {
        if (!wide) {
            return x;
        }
        const TensorId padded = b.pad(x, {inputWidth - embd, 0, 0, 0});
        b.expand(padded);
        return padded;
    };
    const std::uint32_t build = m_params.llamaBuild;
    if (build < kMixedInputBuild) {
        rows = widen(rows);
    }
    b.expand(rows);
    TensorId mixedRows = kNoTensor;
    if (build >= kMixedInputBuild) {
        const TensorId mixedTokens = b.input(GgmlType::I32, {T, 1, 1, 1}, "inp_mixed_tokens");
        mixedRows = b.getRows(table, mixedTokens);
        b.expand(mixedRows);
    }
    if (build >= kInputSelectBuild) {
        b.expand(b.input(GgmlType::F32, {inputWidth, T, 1, 1}, "inp_embd"));
    }
    if (mixedRows != kNoTensor) {
        rows = widen(rows);
        mixedRows = widen(mixedRows);
        const TensorId slots = b.input(GgmlType::I64, {T, 1, 1, 1}, "inp_mixed_slots");
        const TensorId mixedEmbeddings = b.input(GgmlType::F32, {inputWidth, T, 1, 1}, "inp_mixed_embd");
        b.expand(b.setRows(b.dup(mixedEmbeddings), mixedRows, slots));
    }
    if (wide) {
        rows = b.view2d(rows, embd, T, b.graph()[rows].nb[1], 0);
        b.setName(rows, "embd");
        b.expand(rows);
    }
    return rows;
}

TensorId LlmGraph::inputPositions(std::int64_t positionsPerToken) {
    if (m_positions == kNoTensor) {
        m_positions = m_builder.input(
            GgmlType::I32, {static_cast<std::int64_t>(tokens()) * positionsPerToken, 1, 1, 1}, "inp_pos");
    }
    return m_positions;
}

TensorId LlmGraph::normWherePresent(std::uint32_t layer, TensorId x, std::string_view weightName) {
    const TensorId weight = blockWeight(layer, weightName);
    return weight == kNoTensor ? x : norm(x, weight, kNoTensor, true, static_cast<int>(layer));
}

TensorId LlmGraph::attentionResidual(std::uint32_t layer, TensorId attentionOutput, TensorId layerInput) {
    if (layer + 1 == m_model.trunkLayerCount()) {
        attentionOutput = m_builder.getRows(attentionOutput, outputIds());
        layerInput = m_builder.getRows(layerInput, outputIds());
    }
    return m_builder.add(attentionOutput, layerInput);
}

TensorId LlmGraph::addDeepstack(TensorId layerOutput, TensorId inputEmbeddings, std::uint32_t layer) {
    if (layer >= m_model.deepstackLayers) {
        return layerOutput;
    }
    const Tensor& rows = m_builder.graph()[inputEmbeddings];
    const auto sliceBytes = static_cast<std::uint64_t>(rows.ne[0]) * sizeof(float);
    const TensorId slice = m_builder.view2d(inputEmbeddings, rows.ne[0], rows.ne[1], rows.nb[1],
                                            (static_cast<std::uint64_t>(layer) + 1) * sliceBytes);
    return m_builder.add(layerOutput, slice);
}

TensorId LlmGraph::outputIds() {
    if (m_outputIds == kNoTensor) {
        m_outputIds = m_builder.input(
            GgmlType::I32, {static_cast<std::int64_t>(m_params.reserve.outputs), 1, 1, 1}, "out_ids");
    }
    return m_outputIds;
}

TensorId LlmGraph::norm(TensorId x, TensorId weight, TensorId bias, bool rms, int layer) {
    TensorId cur = rms ? m_builder.rmsNorm(x) : m_builder.norm(x);
    // llama-context.cpp graph_get_cb: "norm may be automatically assigned to the backend of the
    // previous layer, increasing data transfer between backends": a layer's norm is pinned to the
    // layer's backend when the batch is under 32 tokens or every layer is offloaded.
    if (layer >= 0 && static_cast<std::size_t>(layer) < m_params.layerBackends.size() &&
        (tokens() < 32 || m_params.fullOffload)) {
        m_builder.pin(cur, m_params.layerBackends[static_cast<std::size_t>(layer)]);
    }
    if (weight != kNoTensor) {
        cur = m_builder.mul(cur, weight);
    }
    if (bias != kNoTensor) {
        cur = m_builder.add(cur, bias);
    }
    return cur;
}

TensorId LlmGraph::addBias(TensorId x, std::uint32_t layer, std::string_view suffix) {
    const TensorId bias = blockWeight(layer, suffix);
    return bias == kNoTensor ? x : m_builder.add(x, bias);
}

TensorId LlmGraph::projectHeads(std::uint32_t layer, std::string_view stem, TensorId x, std::int64_t heads,
                                std::int64_t headDim) {
    const std::string name(stem);
    const TensorId projected =
        addBias(project(blockWeight(layer, name + ".weight"), x), layer, name + ".bias");
    return m_builder.reshape(projected, {headDim, heads, static_cast<std::int64_t>(tokens()), 1});
}

LlmGraph::QueryKeyValue LlmGraph::queryKeyValue(std::uint32_t layer, TensorId x, std::int64_t heads,
                                                std::int64_t headsKv, std::int64_t headDim) {
    const TensorId fused = blockWeight(layer, "attn_qkv.weight");
    if (fused == kNoTensor) {
        return {projectHeads(layer, "attn_q", x, heads, headDim),
                projectHeads(layer, "attn_k", x, headsKv, headDim),
                projectHeads(layer, "attn_v", x, headsKv, headDim)};
    }
    const TensorId qkv = addBias(project(fused, x), layer, "attn_qkv.bias");
    const std::uint64_t value = ggmlTypeTraits(m_builder[qkv].type).bytesPerBlock;
    const std::uint64_t row = m_builder[qkv].nb[1];
    const auto T = static_cast<std::int64_t>(tokens());
    const auto d = static_cast<std::uint64_t>(headDim);
    const auto viewOf = [&](std::int64_t n, std::uint64_t offsetValues) {
        return m_builder.view3d(qkv, {headDim, n, T, 1}, value * d, row, value * offsetValues);
    };
    return {viewOf(heads, 0), viewOf(headsKv, d * static_cast<std::uint64_t>(heads)),
            viewOf(headsKv, d * static_cast<std::uint64_t>(heads + headsKv))};
}

TensorId LlmGraph::attentionWithoutRope(std::uint32_t layer, TensorId x) {
    const LayerInfo& info = m_model.layers.at(layer);
    const TensorId q = projectHeads(layer, "attn_q", x, info.headCount, info.keyHeadDim);
    const TensorId k = projectHeads(layer, "attn_k", x, info.headCountKv, info.keyHeadDim);
    const TensorId v = projectHeads(layer, "attn_v", x, info.headCountKv, info.valueHeadDim);
    return attention(layer, q, k, v);
}

TensorId LlmGraph::qkvAttention(std::uint32_t layer, TensorId x, TensorId positions, TensorId ropeFactors) {
    const LayerInfo& info = m_model.layers.at(layer);
    const QueryKeyValue qkv = queryKeyValue(layer, x, info.headCount, info.headCountKv, info.keyHeadDim);
    if (positions == kNoTensor) {
        return attention(layer, qkv.q, qkv.k, qkv.v);
    }
    return attention(layer, m_builder.rope(qkv.q, positions, ropeFactors),
                     m_builder.rope(qkv.k, positions, ropeFactors), qkv.v);
}

TensorId LlmGraph::feedForward(TensorId x, std::uint32_t layer, GluOp glu) {
    // build_ffn(LLM_FFN_SILU, LLM_FFN_PAR): silu(gate) * up in one GLU, then down.
    GraphBuilder& b = m_builder;
    const TensorId up = addBias(project(blockWeight(layer, "ffn_up.weight"), x), layer, "ffn_up.bias");
    const TensorId gate = addBias(project(blockWeight(layer, "ffn_gate.weight"), x), layer, "ffn_gate.bias");
    const TensorId product = b.glu(gate, up, glu);
    return addBias(project(blockWeight(layer, "ffn_down.weight"), product), layer, "ffn_down.bias");
}

bool LlmGraph::layerIsSwa(std::uint32_t layer) const {
    const AttentionKind kind = m_model.layers.at(layer).attention;
    return kind == AttentionKind::SlidingWindow || kind == AttentionKind::Chunked;
}

TensorId LlmGraph::kqMask(std::uint32_t cells) {
    // build_attn_inp_kq_mask: [cells, tokens per stream, 1, streams], f16 under flash attention since
    // llama.cpp PR #23764 (kF16FlashMaskBuild); before it, an f32 input that build_attn_inp_kv_impl
    // casts to f16 for the flash attention nodes (self_kq_mask_cnv), the cast entering the graph at
    // the first node that reads it.
    GraphBuilder& b = m_builder;
    const auto T = static_cast<std::int64_t>(tokens());
    const auto streams = static_cast<std::int64_t>(m_params.kvStreams);
    const bool f16Input = m_params.flashAttention && m_params.llamaBuild >= kF16FlashMaskBuild;
    const TensorId mask =
        b.input(f16Input ? GgmlType::F16 : GgmlType::F32,
                {static_cast<std::int64_t>(cells), T / streams, 1, streams}, "attn_inp_kq_mask");
    return m_params.flashAttention && !f16Input ? b.cast(mask, GgmlType::F16) : mask;
}

const LlmGraph::KvInputs& LlmGraph::kvInputs(bool swa) {
    if (const auto found = m_kvInputs.find(swa); found != m_kvInputs.end()) {
        return found->second;
    }
    // llm_graph_context::build_attn_inp_kv and the KV cache's build_input_*: the store indices (one
    // per value of a transposed V), the mask over the whole cache per stream (f16 under flash
    // attention), and a quantized cache's rotations.
    GraphBuilder& b = m_builder;
    const auto T = static_cast<std::int64_t>(tokens());
    KvInputs inputs;
    inputs.cells = swa ? m_params.kvSwaCells : m_params.kvCells;
    const KvRotationShape heads = kvRotationShape(m_model, swa);
    std::int64_t valueWidth = 0;
    for (const LayerInfo& layer : m_model.layers) {
        if (layer.hasKv && layerIsSwa(static_cast<std::uint32_t>(&layer - m_model.layers.data())) == swa) {
            valueWidth = static_cast<std::int64_t>(layer.valueHeadDim) * layer.headCountKv;
            break;
        }
    }
    // Rotations since llama.cpp PR #21038 (llamabuild.h kKvRotationBuild).
    const bool rotates = m_params.llamaBuild >= kKvRotationBuild;
    if (const std::uint32_t size = keyRotationSize(heads.keyHeadDim, m_params.cacheTypeK);
        rotates && size > 0) {
        inputs.kRotation = b.input(GgmlType::F32, {size, size, 1, 1}, "attn_inp_k_rot");
    }
    if (const std::uint32_t size = valueRotationSize(heads.valueHeadDim, m_params.cacheTypeV);
        rotates && size > 0) {
        inputs.vRotation = b.input(GgmlType::F32, {size, size, 1, 1}, "attn_inp_v_rot");
    }
    inputs.kIndices = b.input(GgmlType::I64, {T, 1, 1, 1}, "attn_inp_k_idxs");
    inputs.vIndices = b.input(GgmlType::I64, {m_params.transposedValueCache ? T * valueWidth : T, 1, 1, 1},
                              "attn_inp_v_idxs");
    inputs.mask = kqMask(inputs.cells);
    return m_kvInputs.emplace(swa, inputs).first->second;
}

TensorId LlmGraph::kvCache(std::uint32_t layer, bool keys) {
    const auto key = std::make_pair(layer, keys);
    if (const auto found = m_caches.find(key); found != m_caches.end()) {
        return found->second;
    }
    // llama-kv-cache.cpp: one [n_embd_gqa, cells, streams] tensor per layer and kind.
    const LayerInfo& info = m_model.layers.at(layer);
    const std::int64_t width =
        static_cast<std::int64_t>(keys ? info.keyHeadDim : info.valueHeadDim) * info.headCountKv;
    const std::uint32_t cells = layerIsSwa(layer) ? m_params.kvSwaCells : m_params.kvCells;
    const BufferId buffer = m_builder.addBuffer(m_params.kvBuffers.at(layer));
    const TensorId id = m_builder.leaf(keys ? m_params.cacheTypeK : m_params.cacheTypeV,
                                       {width, cells, static_cast<std::int64_t>(m_params.kvStreams), 1},
                                       (keys ? "cache_k_l" : "cache_v_l") + std::to_string(layer), buffer);
    m_caches.emplace(key, id);
    return id;
}

TensorId LlmGraph::rotate(TensorId x, TensorId rotation) {
    // llama-graph.cpp: a rotation multiplies rows of its own size, whatever x's shape.
    GraphBuilder& b = m_builder;
    const GraphBuilder::Shape shape = b[x].ne;
    const std::int64_t size = b[rotation].ne[0];
    const std::int64_t elements = shape[0] * shape[1] * shape[2] * shape[3];
    const TensorId rows = b.reshape(x, {size, elements / size, 1, 1});
    return b.reshape(b.mulMat(rotation, rows), shape);
}

TensorId LlmGraph::attention(std::uint32_t layer, TensorId q, TensorId k, TensorId v,
                             const AttentionOptions& options) {
    GraphBuilder& b = m_builder;
    const bool swa = layerIsSwa(layer);
    const KvInputs inputs = kvInputs(swa);
    const LayerInfo& info = m_model.layers.at(layer);
    const auto T = static_cast<std::int64_t>(tokens());
    const auto streams = static_cast<std::int64_t>(m_params.kvStreams);
    const auto cells = static_cast<std::int64_t>(inputs.cells);
    const auto headsKv = static_cast<std::int64_t>(info.headCountKv);
    const auto keyDim = static_cast<std::int64_t>(info.keyHeadDim);
    const auto valueDim = static_cast<std::int64_t>(info.valueHeadDim);
    const bool flash = m_params.flashAttention;
    const GgmlType typeK = m_params.cacheTypeK;
    const GgmlType typeV = m_params.cacheTypeV;

    // A quantized K rotates Q and K, a quantized V rotates V (and, below, the output).
    if (inputs.kRotation != kNoTensor) {
        q = rotate(q, inputs.kRotation);
        k = rotate(k, inputs.kRotation);
    }
    if (inputs.vRotation != kNoTensor) {
        v = rotate(v, inputs.vRotation);
    }
    // build_attn: "these nodes are added to the graph together so that they are not reordered".
    b.expand(q);
    if (options.iswa) {
        b.expand(k);
        b.expand(v);
    } else {
        b.expand(v);
        b.expand(k);
    }

    // llama_kv_cache::cpy_k / cpy_v: the ubatch's rows written into the cache (a streamed cache
    // seen as one matrix; a transposed V element by element).
    const TensorId keyCache = kvCache(layer, true);
    const TensorId valueCache = kvCache(layer, false);
    const TensorId keyRows =
        b.view(k, {keyDim * headsKv, T, 1, 1}, {b[k].nb[2], b[k].nb[2] * T, b[k].nb[2] * T}, 0);
    const TensorId keyTarget =
        streams > 1 ? b.reshape(keyCache, {keyDim * headsKv, cells * streams, 1, 1}) : keyCache;
    b.expand(b.setRows(keyTarget, keyRows, inputs.kIndices));
    TensorId valueStore = kNoTensor;
    const bool transposedV = m_params.transposedValueCache;
    if (!transposedV) {
        const TensorId valueRows =
            b.view(v, {valueDim * headsKv, T, 1, 1}, {b[v].nb[2], b[v].nb[2] * T, b[v].nb[2] * T}, 0);
        const TensorId valueTarget =
            streams > 1 ? b.reshape(valueCache, {valueDim * headsKv, cells * streams, 1, 1}) : valueCache;
        valueStore = b.setRows(valueTarget, valueRows, inputs.vIndices);
    } else {
        // Its heads merge into rows in place where they are contiguous; a view of a fused QKV
        // (build_qkv) is copied out first.
        const std::uint64_t rowBytes =
            ggmlTypeTraits(b[v].type).bytesPerBlock * static_cast<std::uint64_t>(valueDim * headsKv);
        const GraphBuilder::Shape merged = {valueDim * headsKv, T, 1, 1};
        const TensorId valueMatrix = rowBytes == b[v].nb[2] ? b.reshape(v, merged) : b.cont(v, merged);
        const TensorId valueRows = b.reshape(valueMatrix, {1, valueDim * headsKv * T, 1, 1});
        const TensorId valueTarget = b.reshape(valueCache, {1, cells * streams * valueDim * headsKv, 1, 1});
        valueStore = b.setRows(valueTarget, valueRows, inputs.vIndices);
    }
    b.expand(valueStore);

    // build_attn_mha over the whole cache: Q split into streams, K and V as the cache's views.
    const Tensor& query = b[q];
    const TensorId queryView =
        b.view(q, {query.ne[0], query.ne[1], query.ne[2] / streams, streams},
               {query.nb[1], query.nb[2], query.nb[3] / static_cast<std::uint64_t>(streams)}, 0);
    const TensorId queries = b.permute(queryView, {0, 2, 1, 3});
    const std::uint64_t keyRow = rowBytes(typeK, keyDim * headsKv);
    const TensorId keys = b.permute(b.view(keyCache, {keyDim, headsKv, cells, streams},
                                           {rowBytes(typeK, keyDim), keyRow, keyRow * cells}, 0),
                                    {0, 2, 1, 3});
    TensorId cur = kNoTensor;
    if (flash) {
        const std::uint64_t valueRow = rowBytes(typeV, valueDim * headsKv);
        TensorId values = b.permute(b.view(valueCache, {valueDim, headsKv, cells, streams},
                                           {rowBytes(typeV, valueDim), valueRow, valueRow * cells}, 0),
                                    {0, 2, 1, 3});
        // build_attn_mha: flash attention reads f16, so an f32 K or V is cast whole, per layer.
        const TensorId flashKeys = typeK == GgmlType::F32 ? b.cast(keys, GgmlType::F16) : keys;
        if (typeV == GgmlType::F32) {
            values = b.cast(values, GgmlType::F16);
        }
        const TensorId attended = b.flashAttention(queries, flashKeys, values, inputs.mask, options.sinks);
        // LLAMA_TENSOR_NAME_FATTN "-" il: resolve_fused_ops reads the layer of each flash attention
        // node from its name (flashAttentionKept in computeengine.h).
        b.setName(attended, std::string(kFlashAttentionName) + std::to_string(layer));
        const Tensor& out = b[attended];
        cur = b.reshape(attended, {out.ne[0] * out.ne[1], out.ne[2] * out.ne[3], 1, 1});
    } else {
        // llama_kv_cache::get_v of a transposed V: [cells, heads, head_dim, streams]. V in rows (-fa
        // auto turned off after the cache was made) is transposed and made contiguous instead
        // (build_attn_mha's "note: avoid this branch").
        TensorId values = kNoTensor;
        if (transposedV) {
            values = b.permute(b.view(valueCache, {cells, headsKv, valueDim, streams},
                                      {rowBytes(typeV, cells * valueDim), rowBytes(typeV, cells),
                                       rowBytes(typeV, cells * valueDim * headsKv)},
                                      0),
                               {0, 2, 1, 3});
        } else {
            const std::uint64_t valueRow = rowBytes(typeV, valueDim * headsKv);
            const TensorId rows =
                b.permute(b.view(valueCache, {valueDim, headsKv, cells, streams},
                                 {rowBytes(typeV, valueDim), valueRow, valueRow * cells}, 0),
                          {0, 2, 1, 3});
            const TensorId transposed = b.transpose(rows);
            values = b.cont(transposed, b[transposed].ne);
        }
        TensorId logits = b.mulMat(keys, queries);
        // build_attn_mha: "if (hparams.attn_soft_cap)" the scores go through scale, tanh, scale.
        if (options.softcapLogits) {
            logits = b.scale(b.unary(b.scale(logits), UnaryOp::Tanh));
        }
        const TensorId scores = b.softMax(logits, inputs.mask, options.sinks);
        const TensorId mixed = b.permute(b.mulMat(values, scores), {0, 2, 1, 3});
        const Tensor& out = b[mixed];
        cur = b.cont(mixed, {out.ne[0] * out.ne[1], out.ne[2] * out.ne[3], 1, 1});
        // "all nodes between the KV store and the attention output are run on the CPU" (-nkvo).
        if (!m_params.offloadKqv) {
            b.pin(cur, m_params.cpuBackend);
        }
    }
    // build_attn_mha expands its output; build_attn then rotates it back (a quantized V) before wo,
    // so the rotation waits for a later expand (after a hybrid's next recurrent state, say).
    b.expand(cur);
    if (inputs.vRotation != kNoTensor) {
        cur = rotate(cur, inputs.vRotation);
    }
    if (!options.projectOutput) {
        return cur;
    }
    cur = project(blockWeight(layer, "attn_output.weight"), cur);
    return addBias(cur, layer, "attn_output.bias");
}

TensorId LlmGraph::outputHead(TensorId x, bool adaptedOutput) {
    GraphBuilder& b = m_builder;
    const TensorId normed = norm(x, weight("output_norm.weight"), weight("output_norm.bias"), true, -1);
    b.setOutput(normed);
    const TensorId logits =
        adaptedOutput ? project(outputWeight(), normed) : b.mulMat(outputWeight(), normed);
    b.setOutput(logits);
    b.expand(logits);
    return logits;
}

} // namespace llamafit::graph

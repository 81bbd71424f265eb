// MiniMax-M2 (llama.cpp src/models/minimax-m2.cpp) and OLMoE (olmoe.cpp): pre-norm attention
// whose Q and K are RMS-normed over the whole projection (attn_q_norm is n_head x head_dim wide,
// not per head) before they are split into heads; RoPE (MiniMax-M2: over the first n_rot of each
// head, 64 of 128), the KV cache; then build_moe_ffn on every layer; both residual; the last layer
// keeps only the output rows. They differ only in build_moe_ffn's arguments: MiniMax-M2 gates as
// the file's expert_gating_func says (sigmoid in MiniMax's files), normalises the selected weights
// and adds the experts' selection bias; OLMoE gates by softmax and does neither.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

bool routedExpertsWithFileGating(const ModelInfo& model) {
    return model.isMoe() && !model.hasRecurrentLayers() && !model.hasSlidingWindowLayers() &&
           gatingOfFile(model).has_value();
}

namespace {

TensorId buildNormedProjectionExpertsGraph(LlmGraph& g, const MoeOptions& moe) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    const auto tokens = static_cast<std::int64_t>(g.tokens());
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        TensorId q = g.project(g.blockWeight(il, "attn_q.weight"), cur);
        TensorId k = g.project(g.blockWeight(il, "attn_k.weight"), cur);
        TensorId v = g.project(g.blockWeight(il, "attn_v.weight"), cur);
        q = g.norm(q, g.blockWeight(il, "attn_q_norm.weight"), kNoTensor, true, layer);
        k = g.norm(k, g.blockWeight(il, "attn_k_norm.weight"), kNoTensor, true, layer);
        const auto heads = static_cast<std::int64_t>(info.headCount);
        const auto headsKv = static_cast<std::int64_t>(info.headCountKv);
        q = b.reshape(q, {info.keyHeadDim, heads, tokens, 1});
        k = b.reshape(k, {info.keyHeadDim, headsKv, tokens, 1});
        v = b.reshape(v, {info.valueHeadDim, headsKv, tokens, 1});
        q = b.rope(q, positions);
        k = b.rope(k, positions);
        cur = g.attention(il, q, k, v);

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        cur = buildMoeFeedForward(g, cur, il, moe);
        inpL = b.add(cur, ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace

TensorId buildMinimaxM2Graph(LlmGraph& g) {
    const ModelInfo& model = g.model();
    return buildNormedProjectionExpertsGraph(g, {.gating = *gatingOfFile(model),
                                                 .normalizeWeights = true,
                                                 .weightsScale = model.expertWeightsScale,
                                                 .selectionBias = true});
}

TensorId buildOlmoeGraph(LlmGraph& g) {
    return buildNormedProjectionExpertsGraph(
        g, {.gating = ExpertGating::Softmax, .weightsScale = g.model().expertWeightsScale});
}

} // namespace llamafit::graph

// ERNIE 4.5 MoE (llama.cpp src/models/ernie4-5-moe.cpp) and dots.llm1 (dots1.cpp). Pre-norm
// attention (build_qkv; dots1's Q and K RMS-normed per head; RoPE, the KV cache); then a dense
// SwiGLU feed-forward in the leading dense layers (n_layer_dense_lead: those without a router)
// and, in the others, build_moe_ffn with the experts' selection bias where the file has one,
// beside the shared experts where it has them; both residual; the last layer keeps only the
// output rows. ERNIE gates by softmax and normalises the selected weights; dots1 gates and
// normalises as the file says (expert_gating_func, expert_weights_norm). The dense ERNIE 4.5
// (ernie4-5.cpp) is llama.cpp's dense graph without RoPE factors (buildLlamaGraph).
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

namespace {

TensorId buildDenseLeadExpertsGraph(LlmGraph& g, const MoeOptions& moe) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        const TensorId q = g.projectHeads(il, "attn_q", cur, info.headCount, info.keyHeadDim);
        const TensorId k = g.projectHeads(il, "attn_k", cur, info.headCountKv, info.keyHeadDim);
        const TensorId v = g.projectHeads(il, "attn_v", cur, info.headCountKv, info.valueHeadDim);
        const TensorId qRotated = b.rope(g.normWherePresent(il, q, "attn_q_norm.weight"), positions);
        const TensorId kRotated = b.rope(g.normWherePresent(il, k, "attn_k_norm.weight"), positions);
        cur = g.attention(il, qRotated, kRotated, v);

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        cur = buildDenseOrSharedExpertsFeedForward(g, cur, il, moe);
        inpL = b.add(cur, ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace

TensorId buildErnie45MoeGraph(LlmGraph& g) {
    return buildDenseLeadExpertsGraph(g, {.gating = ExpertGating::Softmax,
                                          .normalizeWeights = true,
                                          .weightsScale = g.model().expertWeightsScale,
                                          .selectionBias = true});
}

bool denseLeadExpertsWithFileGating(const ModelInfo& model) {
    return routedAndSharedExperts(model) && gatingOfFile(model).has_value();
}

TensorId buildDots1Graph(LlmGraph& g) {
    const ModelInfo& model = g.model();
    return buildDenseLeadExpertsGraph(g, {.gating = *gatingOfFile(model),
                                          .normalizeWeights = model.expertWeightsNorm,
                                          .weightsScale = model.expertWeightsScale,
                                          .selectionBias = true});
}

} // namespace llamafit::graph

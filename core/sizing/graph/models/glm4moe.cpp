// GLM-4.5 / GLM-4.5-Air: llama.cpp src/models/glm4-moe.cpp. Pre-norm attention with Q/K/V biases
// (build_qkv), Q/K RMS norms where the model has them (the 355B variant), RoPE over the KV cache;
// a post-attention RMS norm, then a dense SwiGLU feed-forward in the leading dense layers
// (n_layer_dense_lead: those without a router) and, in the others, build_moe_ffn with sigmoid
// gating and the experts' selection bias (ffn_exp_probs_b) beside a shared expert, summed; both
// residual. The NextN block's tensors are loaded but not run (the loop stops at n_layer).
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

bool routedExpertsWithDenseLead(const ModelInfo& model) {
    // glm4-moe.cpp passes hparams.expert_gating_func, sigmoid when the file says none (0); its
    // build_moe_ffn call names no expert groups and no fused gate_up experts.
    return model.isMoe() && !model.hasRecurrentLayers() && !model.hasSlidingWindowLayers() &&
           model.expertGroupCount <= 1 && (model.expertGatingFunc == 0 || model.expertGatingFunc == 2);
}

TensorId buildGlm4MoeGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    const MoeOptions moe{.gating = ExpertGating::Sigmoid,
                         .normalizeWeights = model.expertWeightsNorm,
                         .weightsScale = model.expertWeightsScale,
                         .selectionBias = true};
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        const auto heads = static_cast<std::int64_t>(info.headCount);
        const auto headsKv = static_cast<std::int64_t>(info.headCountKv);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        TensorId q = g.projectHeads(il, "attn_q", cur, heads, info.keyHeadDim);
        TensorId k = g.projectHeads(il, "attn_k", cur, headsKv, info.keyHeadDim);
        const TensorId v = g.projectHeads(il, "attn_v", cur, headsKv, info.valueHeadDim);
        q = b.rope(g.normWherePresent(il, q, "attn_q_norm.weight"), positions);
        k = b.rope(g.normWherePresent(il, k, "attn_k_norm.weight"), positions);
        cur = g.attention(il, q, k, v);

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "post_attention_norm.weight"), kNoTensor, true, layer);
        cur = buildDenseOrSharedExpertsFeedForward(g, cur, il, moe);
        inpL = b.add(cur, ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

// Granite 3.x, dense and MoE: llama.cpp src/models/granite.cpp, whose graph granitemoe shares.
// Pre-norm attention over the KV cache (build_qkv, fused or per tensor; RoPE with the model's
// factors, unless rope.scaling.finetuned switches it off), then build_ffn (SwiGLU) where a layer has
// no router, else build_moe_ffn (softmax gating, normalised weights scaled by expert_weights_scale)
// plus the shared experts where the model has them (n_ff_shexp). Granite scales the token rows
// (f_embedding_scale, in build_inp_embd) and both residual branches (f_residual_scale) where the file
// sets them, and always the logits (1 / f_logit_scale, which the loader requires). The last layer
// keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

TensorId graniteOutputHead(LlmGraph& g, TensorId x) {
    GraphBuilder& b = g.builder();
    const TensorId normed = g.norm(x, g.weight("output_norm.weight"), kNoTensor, true, -1);
    b.setOutput(normed);
    const TensorId logits = b.scale(g.project(g.outputWeight(), normed));
    b.setOutput(logits);
    b.expand(logits);
    return logits;
}

TensorId graniteInputEmbeddings(LlmGraph& g) {
    // llama-graph.cpp build_inp_embd: the token rows scaled where f_embedding_scale is set, then
    // expanded ("make sure the produced embeddings are immediately materialized"; rows that are not
    // scaled are in the graph already, so expanding them again adds nothing).
    TensorId rows = g.inputEmbeddings();
    if (g.model().embeddingScale != 0.0f) {
        rows = g.builder().scale(rows);
    }
    g.builder().expand(rows);
    return rows;
}

TensorId graniteResidualScaled(LlmGraph& g, TensorId x) {
    return g.model().residualScale != 0.0f ? g.builder().scale(x) : x;
}

bool graniteLayers(const ModelInfo& model) {
    return !model.hasRecurrentLayers() && !model.hasSlidingWindowLayers();
}

TensorId buildGraniteGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = graniteInputEmbeddings(g);
    const auto residualScaled = [&](TensorId x) { return graniteResidualScaled(g, x); };
    // granite.cpp build_layer_ffn: build_moe_ffn(..., LLM_FFN_SILU, norm_w = true,
    // hparams.expert_weights_scale, LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX).
    MoeOptions moe;
    moe.gating = ExpertGating::Softmax;
    moe.activation = ExpertActivation::Silu;
    moe.normalizeWeights = true;
    moe.weightsScale = model.expertWeightsScale;
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        // build_attention_layer: Q, K and V, rotated with the model's factors where has_rope(il)
        // (rope.scaling.finetuned), then build_attn with wo and its bias (f_attention_scale only
        // changes the KQ scale, not the graph).
        const bool rotates = model.ropeScalingFinetuned;
        const TensorId factors = rotates ? g.ropeFactors(il) : kNoTensor;
        cur = g.qkvAttention(il, cur, rotates ? g.inputPositions() : kNoTensor, factors);

        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpSA = b.getRows(inpSA, g.outputIds());
        }
        const TensorId ffnInput = b.add(residualScaled(cur), inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        if (g.blockWeight(il, "ffn_gate_inp.weight") == kNoTensor) {
            cur = g.feedForward(cur, il);
        } else {
            const TensorId routed = buildMoeFeedForward(g, cur, il, moe);
            cur = model.sharedExpertFeedForwardLength > 0
                      ? b.add(routed, buildSharedExpertsFeedForward(g, cur, il))
                      : routed;
        }
        inpL = b.add(residualScaled(cur), ffnInput);
    }
    return graniteOutputHead(g, inpL);
}

} // namespace llamafit::graph

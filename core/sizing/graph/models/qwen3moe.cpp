// Qwen3-MoE: llama.cpp src/models/qwen3moe.cpp. Qwen3's attention (pre-norm, Q/K RMS norms per
// head, RoPE, the KV cache) and, in place of the dense feed-forward, build_moe_ffn with softmax
// gating and normalised expert weights (moe.h); both residual; the last layer keeps only the
// output rows. Qwen3-VL-MoE (qwen3vlmoe.cpp) is the same with M-RoPE (four positions per token)
// and the deepstack (LlmGraph::addDeepstack).
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

namespace {

TensorId buildQwen3ExpertsGraph(LlmGraph& g, std::int64_t positionsPerToken) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const TensorId inputEmbeddings = g.inputEmbeddings();
    TensorId inpL = inputEmbeddings;
    const TensorId positions = g.inputPositions(positionsPerToken);
    const std::uint32_t layers = model.trunkLayerCount();
    // qwen3moe.cpp: build_moe_ffn(..., LLM_FFN_SILU, norm_w = true, hparams.expert_weights_scale,
    // LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX); the models here carry no expert_weights_scale (0).
    MoeOptions moe;
    moe.gating = ExpertGating::Softmax;
    moe.activation = ExpertActivation::Silu;
    moe.normalizeWeights = true;
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        // build_qkv: Q, K and V projected and split into heads; Q and K RMS-normed per head and
        // rotated.
        const auto project = [&](std::string_view name, std::int64_t heads, std::int64_t headDim) {
            return g.projectHeads(il, name, cur, heads, headDim);
        };
        const auto heads = static_cast<std::int64_t>(info.headCount);
        const auto headsKv = static_cast<std::int64_t>(info.headCountKv);
        TensorId q = project("attn_q", heads, info.keyHeadDim);
        q = g.norm(q, g.blockWeight(il, "attn_q_norm.weight"), kNoTensor, true, layer);
        q = b.rope(q, positions);
        TensorId k = project("attn_k", headsKv, info.keyHeadDim);
        k = g.norm(k, g.blockWeight(il, "attn_k_norm.weight"), kNoTensor, true, layer);
        k = b.rope(k, positions);
        const TensorId v = project("attn_v", headsKv, info.valueHeadDim);
        cur = g.attention(il, q, k, v);

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        cur = buildMoeFeedForward(g, cur, il, moe);
        inpL = g.addDeepstack(b.add(cur, ffnInput), inputEmbeddings, il);
    }
    return g.outputHead(inpL);
}

} // namespace

TensorId buildQwen3MoeGraph(LlmGraph& g) {
    return buildQwen3ExpertsGraph(g, 1);
}

TensorId buildQwen3VlMoeGraph(LlmGraph& g) {
    return buildQwen3ExpertsGraph(g, 4);
}

} // namespace llamafit::graph

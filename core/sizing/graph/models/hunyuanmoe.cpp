// Hunyuan-A13B: llama.cpp src/models/hunyuan-moe.cpp. Pre-norm attention (build_qkv, RoPE with the
// model's RoPE factors where it has them, then Q and K RMS-normed per head after the rotation, the
// KV cache); then build_moe_ffn with softmax gating and normalised weights beside the shared
// expert's build_ffn, summed; both residual; the last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

TensorId buildHunyuanMoeGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    const MoeOptions moe{
        .gating = ExpertGating::Softmax, .normalizeWeights = true, .weightsScale = model.expertWeightsScale};
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        const TensorId factors = g.ropeFactors(il);
        const TensorId q = g.projectHeads(il, "attn_q", cur, info.headCount, info.keyHeadDim);
        const TensorId k = g.projectHeads(il, "attn_k", cur, info.headCountKv, info.keyHeadDim);
        const TensorId v = g.projectHeads(il, "attn_v", cur, info.headCountKv, info.valueHeadDim);
        const TensorId qRotated = b.rope(q, positions, factors);
        const TensorId kRotated = b.rope(k, positions, factors);
        const TensorId kNormed =
            g.norm(kRotated, g.blockWeight(il, "attn_k_norm.weight"), kNoTensor, true, layer);
        const TensorId qNormed =
            g.norm(qRotated, g.blockWeight(il, "attn_q_norm.weight"), kNoTensor, true, layer);
        cur = g.attention(il, qNormed, kNormed, v);

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        const TensorId shared = buildSharedExpertsFeedForward(g, cur, il);
        const TensorId routed = buildMoeFeedForward(g, cur, il, moe);
        inpL = b.add(b.add(routed, shared), ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

// ERNIE 4.5 MoE (ERNIE-4.5-21B-A3B, 300B-A47B): llama.cpp src/models/ernie4-5-moe.cpp. Pre-norm
// attention (build_qkv, RoPE, the KV cache); then a dense SwiGLU feed-forward in the leading dense
// layers (n_layer_dense_lead: those without a router) and, in the others, build_moe_ffn with
// softmax gating, normalised weights and the experts' selection bias where the file has one,
// beside the shared experts where it has them; both residual; the last layer keeps only the
// output rows. The dense ERNIE 4.5 (ernie4-5.cpp) is llama.cpp's dense graph without RoPE factors
// (buildLlamaGraph).
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

TensorId buildErnie45MoeGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    const MoeOptions moe{.gating = ExpertGating::Softmax,
                         .normalizeWeights = true,
                         .weightsScale = model.expertWeightsScale,
                         .selectionBias = true};
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        const TensorId q = g.projectHeads(il, "attn_q", cur, info.headCount, info.keyHeadDim);
        const TensorId k = g.projectHeads(il, "attn_k", cur, info.headCountKv, info.keyHeadDim);
        const TensorId v = g.projectHeads(il, "attn_v", cur, info.headCountKv, info.valueHeadDim);
        const TensorId qRotated = b.rope(q, positions);
        const TensorId kRotated = b.rope(k, positions);
        cur = g.attention(il, qRotated, kRotated, v);

        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpSA = b.getRows(inpSA, g.outputIds());
        }
        const TensorId ffnInput = b.add(cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        cur = buildDenseOrSharedExpertsFeedForward(g, cur, il, moe);
        inpL = b.add(cur, ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

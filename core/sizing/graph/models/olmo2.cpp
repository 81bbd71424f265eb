// OLMo 2 and OLMo 3: llama.cpp src/models/olmo2.cpp. No pre-norm: Q, K and V are projected from the
// layer's input, Q and K RMS-normed over the whole projection (before the split into heads), rotated
// and attended over the KV cache (Olmo 3's sliding-window layers, every fourth layer global, over
// the sliding-window cache); the attention output is RMS-normed (attn_post_norm) before the
// residual; the SwiGLU feed-forward reads the residual sum unnormed, and its output is RMS-normed
// (ffn_post_norm, outside any layer: llama.cpp passes il = -1, so the norm is never pinned) before
// the second residual. The last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"

namespace llamafit::graph {

bool denseAttentionWithSlidingWindows(const ModelInfo& model) {
    return !model.isMoe() && !model.hasRecurrentLayers();
}

TensorId buildOlmo2Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const auto T = static_cast<std::int64_t>(g.tokens());
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        const auto headDim = static_cast<std::int64_t>(info.keyHeadDim);
        TensorId inpSA = inpL;
        const auto normed = [&](TensorId x, std::string_view norm) {
            return g.norm(x, g.blockWeight(il, norm), kNoTensor, true, layer);
        };
        TensorId q = normed(g.project(g.blockWeight(il, "attn_q.weight"), inpL), "attn_q_norm.weight");
        TensorId k = normed(g.project(g.blockWeight(il, "attn_k.weight"), inpL), "attn_k_norm.weight");
        const TensorId v = g.project(g.blockWeight(il, "attn_v.weight"), inpL);
        q = b.rope(b.reshape(q, {headDim, static_cast<std::int64_t>(info.headCount), T, 1}), positions);
        k = b.rope(b.reshape(k, {headDim, static_cast<std::int64_t>(info.headCountKv), T, 1}), positions);
        TensorId cur =
            g.attention(il, q, k, b.reshape(v, {headDim, static_cast<std::int64_t>(info.headCountKv), T, 1}));

        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpSA = b.getRows(inpSA, g.outputIds());
        }
        cur = normed(cur, "post_attention_norm.weight");
        const TensorId ffnInput = b.add(cur, inpSA);
        cur = g.feedForward(ffnInput, il);
        cur = g.norm(cur, g.blockWeight(il, "post_ffw_norm.weight"), kNoTensor, true, -1);
        inpL = b.add(cur, ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

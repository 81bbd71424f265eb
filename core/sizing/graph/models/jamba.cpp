// Jamba: llama.cpp src/models/jamba.cpp. Each layer is a Mamba-1 block (recurrent.h, with its dt,
// B and C RMS norms) where it holds no KV heads, else attention without RoPE over the hybrid
// memory's KV cache; the residual, then an RMS-normed feed-forward: routed experts (build_moe_ffn,
// softmax gating, unnormalised weights) where the layer has a router, else SwiGLU.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"
#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

TensorId buildJambaGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const RsInput rs = buildRsInput(g);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int normLayer = static_cast<int>(il);
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, normLayer);
        if (info.recurrent) {
            cur = buildMambaLayer(g, rs, cur, il);
        } else {
            cur = g.attentionWithoutRope(il, cur);
        }
        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpL = b.getRows(inpL, g.outputIds());
        }
        // The residual is added with the layer's input first (ggml_add(inpL, cur)).
        const TensorId ffnInput = b.add(inpL, cur);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, normLayer);
        if (g.blockWeight(il, "ffn_gate_inp.weight") != kNoTensor) {
            MoeOptions options;
            options.gating = ExpertGating::Softmax;
            options.normalizeWeights = false;
            cur = buildMoeFeedForward(g, cur, il, options);
        } else {
            cur = g.feedForward(cur, il);
        }
        inpL = b.add(ffnInput, cur);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

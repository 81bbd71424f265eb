// Granite 4.0 hybrid: llama.cpp src/models/granite-hybrid.cpp. Each layer is a Mamba-2 block
// (recurrent.h) or, where the layer holds no recurrent state, attention over the hybrid memory's
// KV cache, between an RMS pre-norm and a SwiGLU feed-forward; Granite scales the token rows, both
// residual branches and the logits. The last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

bool denseRecurrentHybrid(const ModelInfo& model) {
    return model.hasRecurrentLayers() && !model.isMoe();
}

TensorId buildGraniteHybridGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    // b11669 expands the (scaled) token rows before the first layer, "to prevent a graph split due to
    // early ggml_build_forward_expand() in build_mamba2_layer()".
    TensorId inpL = graniteInputEmbeddings(g);
    const auto residualScaled = [&](TensorId x) { return graniteResidualScaled(g, x); };
    const RsInput rs = buildRsInput(g);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        TensorId inpSA = inpL;
        TensorId cur =
            g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, static_cast<int>(il));
        if (info.recurrent) {
            cur = buildMamba2Layer(g, rs, cur, il);
        } else {
            // build_attention_layer: Q, K, V (with their biases where the model has them) split into
            // heads; Granite 4.0-H is NoPE (rope.scaling.finetuned false), so no RoPE.
            cur = g.attentionWithoutRope(il, cur);
        }
        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpSA = b.getRows(inpSA, g.outputIds());
        }
        // build_layer_ffn: residual-scaled branches (f_residual_scale, where the file sets it).
        const TensorId ffnInput = b.add(residualScaled(cur), inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, static_cast<int>(il));
        cur = g.feedForward(cur, il);
        inpL = b.add(residualScaled(cur), ffnInput);
    }
    return graniteOutputHead(g, inpL);
}

} // namespace llamafit::graph

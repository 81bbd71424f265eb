// Nemotron-H: llama.cpp src/models/nemotron-h.cpp. Each layer is one of three kinds after an RMS
// pre-norm: a Mamba-2 block (recurrent.h) where it holds recurrent state, attention (no RoPE) where
// it holds a KV cache, else a feed-forward of squared ReLU (build_ffn LLM_FFN_RELU_SQR, no gate);
// then the residual. The last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

bool denseRecurrentStack(const ModelInfo& model) {
    return model.hasRecurrentLayers() && !model.isMoe();
}

TensorId buildNemotronHGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const RsInput rs = buildRsInput(g);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        TensorId cur =
            g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, static_cast<int>(il));
        if (info.recurrent) {
            cur = buildMamba2Layer(g, rs, cur, il);
        } else if (info.hasKv) {
            cur = g.attentionWithoutRope(il, cur);
        } else {
            cur = g.addBias(g.project(g.blockWeight(il, "ffn_up.weight"), cur), il, "ffn_up.bias");
            cur = b.sqr(b.unary(cur, UnaryOp::Relu));
            cur = g.addBias(g.project(g.blockWeight(il, "ffn_down.weight"), cur), il, "ffn_down.bias");
        }
        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpL = b.getRows(inpL, g.outputIds());
        }
        inpL = b.add(cur, inpL);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

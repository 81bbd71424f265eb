// The Mamba family: llama.cpp src/models/mamba.cpp, one recurrent block per layer (Mamba-1's
// build_mamba_layer or Mamba-2's build_mamba2_layer, recurrent.h) between an RMS pre-norm and the
// residual; no attention, no feed-forward. The last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

bool recurrentOnly(const ModelInfo& model) {
    return model.hasRecurrentLayers() && !model.hasAttentionLayers() && !model.isMoe();
}

TensorId buildMambaGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const bool mamba2 = g.model().architecture == "mamba2";
    TensorId inpL = g.inputEmbeddings();
    const RsInput rs = buildRsInput(g);
    const std::uint32_t layers = g.model().trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        TensorId cur =
            g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, static_cast<int>(il));
        cur = mamba2 ? buildMamba2Layer(g, rs, cur, il) : buildMambaLayer(g, rs, cur, il);
        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpL = b.getRows(inpL, g.outputIds());
        }
        inpL = b.add(cur, inpL);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

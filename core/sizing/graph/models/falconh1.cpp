// Falcon-H1: llama.cpp src/models/falcon-h1.cpp. Every layer runs attention (RoPE, over the hybrid
// memory's KV cache) and a Mamba-2 block (recurrent.h) side by side on the same normed input,
// adds both to the residual, then a SwiGLU feed-forward; the last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

bool parallelRecurrentHybrid(const ModelInfo& model) {
    if (!model.hasRecurrentLayers() || model.isMoe()) {
        return false;
    }
    for (const LayerInfo& layer : model.layers) {
        if (!layer.recurrent || !layer.hasKv) {
            return false;
        }
    }
    return true;
}

TensorId buildFalconH1Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const RsInput rs = buildRsInput(g);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int normLayer = static_cast<int>(il);
        const TensorId attnNorm = g.blockWeight(il, "attn_norm.weight");

        // Attention first (b11669's order, the dumps): Q, K, V split into heads, RoPE on Q and K.
        const TensorId normed = g.norm(inpL, attnNorm, kNoTensor, true, normLayer);
        const auto project = [&](std::string_view name, std::int64_t heads, std::int64_t headDim) {
            return g.projectHeads(il, name, normed, heads, headDim);
        };
        const TensorId q = b.rope(project("attn_q", info.headCount, info.keyHeadDim), g.inputPositions());
        const TensorId k = b.rope(project("attn_k", info.headCountKv, info.keyHeadDim), g.inputPositions());
        const TensorId v = project("attn_v", info.headCountKv, info.valueHeadDim);
        const TensorId attnOut = g.attention(il, q, k, v);

        // The Mamba-2 block over its own norm of the same input.
        const TensorId ssmIn = g.norm(inpL, attnNorm, kNoTensor, true, normLayer);
        const TensorId ssmOut = buildMamba2Layer(g, rs, ssmIn, il);

        TensorId ffnInput = b.add(b.add(attnOut, ssmOut), inpL);
        if (il + 1 == layers) {
            ffnInput = b.getRows(ffnInput, g.outputIds());
        }
        TensorId cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm"), kNoTensor, true, normLayer);
        cur = g.feedForward(cur, il);
        inpL = b.add(cur, ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

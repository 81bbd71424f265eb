// RWKV-6: llama.cpp src/models/rwkv6.cpp on llm_build_rwkv6_base. The token rows LayerNormed
// (token_embd_norm, "Block 0, LN0"), then per layer: the token shift loaded, a LayerNormed time
// mix (WKV6 over the layer's state, rwkv.h) beside the residual, a LayerNormed channel mix beside
// the residual, the new token shift stored, and every rescale_every_n_layers layers the residual
// halved. The last layer keeps only the output rows; a LayerNormed output head.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/rwkv.h"

#include <algorithm>

namespace llamafit::graph {

bool rwkvRecurrentOnly(const ModelInfo& model) {
    // wkv.head_size gives n_embd_s = n_embd * head_size; rwkv6.cpp and rwkv7.cpp assert
    // token_shift_count == 2 (n_embd_r = 2 * n_embd).
    if (!recurrentOnly(model) || model.embeddingLength == 0) {
        return false;
    }
    return std::all_of(
        model.layers.begin(), model.layers.begin() + model.trunkLayerCount(), [&](const LayerInfo& layer) {
            return layer.recurrent && layer.recurrentConvWidth == 2ull * model.embeddingLength &&
                   layer.recurrentStateWidth % model.embeddingLength == 0 && layer.recurrentStateWidth > 0;
        });
}

TensorId buildRwkv6Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const auto embd = static_cast<std::int64_t>(model.embeddingLength);
    const auto seqs = static_cast<std::int64_t>(std::max<std::uint32_t>(g.params().reserve.sequences, 1));
    const auto tokens = static_cast<std::int64_t>(g.tokens());
    const std::int64_t seqTokens = tokens / seqs;

    TensorId inpL = g.inputEmbeddings();
    inpL = g.norm(inpL, g.weight("token_embd_norm.weight"), g.weight("token_embd_norm.bias"), false, 0);
    const RsInput rs = buildRsInput(g);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const int normLayer = static_cast<int>(il);
        inpL = b.reshape(inpL, {embd, seqTokens, seqs, 1});
        const RwkvTokenShift shift = loadRwkvTokenShift(g, rs, il);

        const TensorId attNorm = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"),
                                        g.blockWeight(il, "attn_norm.bias"), false, normLayer);
        TensorId previous = rwkvPreviousTokens(g, shift.attention, attNorm);
        TensorId cur = buildRwkv6TimeMix(g, rs, attNorm, previous, il);

        TensorId ffnInp = b.add(cur, inpL);
        TensorId ffnNorm = g.norm(ffnInp, g.blockWeight(il, "attn_norm_2.weight"),
                                  g.blockWeight(il, "attn_norm_2.bias"), false, normLayer);
        previous = rwkvPreviousTokens(g, shift.feedForward, ffnNorm);
        storeRwkvTokenShift(g, shift, attNorm, ffnNorm);

        // As rows; rwkv6.cpp also reshapes (and in the last layer gathers) the time mix's output,
        // which nothing reads after, so no node of it is in the graph.
        ffnInp = b.reshape(ffnInp, {embd, tokens, 1, 1});
        ffnNorm = b.reshape(ffnNorm, {embd, tokens, 1, 1});
        previous = b.reshape(previous, {embd, tokens, 1, 1});
        if (il + 1 == layers) {
            ffnInp = b.getRows(ffnInp, g.outputIds());
            ffnNorm = b.getRows(ffnNorm, g.outputIds());
            previous = b.getRows(previous, g.outputIds());
        }
        cur = buildRwkv6ChannelMix(g, ffnNorm, previous, il);
        cur = b.add(cur, ffnInp);
        if (model.rescaleEveryLayers != 0 && (il + 1) % model.rescaleEveryLayers == 0) {
            cur = b.scale(cur); // ggml_scale(cur, 0.5)
        }
        inpL = cur;
    }
    return rwkvOutputHead(g, inpL);
}

} // namespace llamafit::graph

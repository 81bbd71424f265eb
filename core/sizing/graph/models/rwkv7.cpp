// RWKV-7: llama.cpp src/models/rwkv7.cpp on llm_build_rwkv7_base. As RWKV-6 (models/rwkv6.cpp):
// the token rows LayerNormed, then per layer the token shift, a LayerNormed time mix (WKV7 over
// the layer's state, its value mixed with the first layer's, rwkv.h) and a LayerNormed channel mix,
// each beside the residual, and the new token shift stored; no rescaling. The last layer keeps
// only the output rows; a LayerNormed output head.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/rwkv.h"

#include <algorithm>

namespace llamafit::graph {

TensorId buildRwkv7Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const auto embd = static_cast<std::int64_t>(model.embeddingLength);
    const auto seqs = static_cast<std::int64_t>(std::max<std::uint32_t>(g.params().reserve.sequences, 1));
    const auto tokens = static_cast<std::int64_t>(g.tokens());
    const std::int64_t seqTokens = tokens / seqs;

    TensorId firstValue = kNoTensor; // v_first
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
        TensorId cur = buildRwkv7TimeMix(g, rs, attNorm, previous, firstValue, il);

        TensorId ffnInp = b.add(cur, inpL);
        TensorId ffnNorm = g.norm(ffnInp, g.blockWeight(il, "attn_norm_2.weight"),
                                  g.blockWeight(il, "attn_norm_2.bias"), false, normLayer);
        previous = rwkvPreviousTokens(g, shift.feedForward, ffnNorm);
        storeRwkvTokenShift(g, shift, attNorm, ffnNorm);

        ffnInp = b.reshape(ffnInp, {embd, tokens, 1, 1});
        ffnNorm = b.reshape(ffnNorm, {embd, tokens, 1, 1});
        previous = b.reshape(previous, {embd, tokens, 1, 1});
        if (il + 1 == layers) {
            ffnInp = b.getRows(ffnInp, g.outputIds());
            ffnNorm = b.getRows(ffnNorm, g.outputIds());
            previous = b.getRows(previous, g.outputIds());
        }
        cur = buildRwkv7ChannelMix(g, ffnNorm, previous, il);
        inpL = b.add(cur, ffnInp);
    }
    return rwkvOutputHead(g, inpL);
}

} // namespace llamafit::graph

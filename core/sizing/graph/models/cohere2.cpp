// cohere2 with sliding-window attention: llama.cpp src/models/cohere2-iswa.cpp. One layer norm
// (LLM_NORM, with its bias where the model has one) feeds the attention and the SwiGLU
// feed-forward in parallel; RoPE only on the sliding-window layers (the global layers attend
// without positions); the layer's output is FFN + residual + attention; the logits are scaled by
// f_logit_scale.
#include "core/sizing/graph/models/modelbuilders.h"

namespace llamafit::graph {

TensorId buildCohere2Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const bool swa = info.attention == AttentionKind::SlidingWindow;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"),
                              g.blockWeight(il, "attn_norm.bias"), false, static_cast<int>(il));
        TensorId ffnInput = cur;

        const auto project = [&](std::string_view name, std::int64_t heads) {
            return g.projectHeads(il, name, cur, heads, info.keyHeadDim);
        };
        TensorId q = project("attn_q", info.headCount);
        TensorId k = project("attn_k", info.headCountKv);
        const TensorId v = project("attn_v", info.headCountKv);
        // "if (is_swa)": RoPE (with the model's rope factors, where it has them) on the
        // sliding-window layers only.
        if (swa) {
            const TensorId factors = g.ropeFactors(il);
            q = b.rope(q, g.inputPositions(), factors);
            k = b.rope(k, g.inputPositions(), factors);
        }
        cur = g.attention(il, q, k, v, {.iswa = true});

        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpL = b.getRows(inpL, g.outputIds());
            ffnInput = b.getRows(ffnInput, g.outputIds());
        }
        const TensorId attentionOut = cur;
        cur = g.feedForward(ffnInput, il);
        cur = b.add(cur, inpL);
        inpL = b.add(cur, attentionOut);
    }

    const TensorId normed =
        g.norm(inpL, g.weight("output_norm.weight"), g.weight("output_norm.bias"), false, -1);
    b.setOutput(normed);
    TensorId logits = g.project(g.outputWeight(), normed);
    // "if (f_logit_scale)": ggml_scale. llama-model.cpp loads cohere2's logit_scale as a required
    // key; ModelInfo does not keep its value, so a model that stores 0 is not told apart here.
    logits = b.scale(logits);
    b.setOutput(logits);
    b.expand(logits);
    return logits;
}

} // namespace llamafit::graph

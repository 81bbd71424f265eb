// Cohere's parallel block: llama.cpp src/models/command-r.cpp (Command R, Command R+, Aya 23 and
// Aya Expanse) and src/models/cohere2-iswa.cpp (Command R7B, Command A). One layer norm (LLM_NORM,
// with its bias where the model has one) feeds the attention and the SwiGLU feed-forward in
// parallel; the layer's output is FFN + residual + attention; the logits are scaled by
// f_logit_scale. The two differ in the attention: command-r rotates every layer (after the per-head
// Q and K layer norms that the 64-layer Command R+ has), cohere2 only its sliding-window layers,
// with the iSWA cache.
#include "core/sizing/graph/models/modelbuilders.h"

#include <functional>

namespace llamafit::graph {
namespace {

// The layers and the output head both files write: `attend` is the layer's self-attention over
// the normed input.
TensorId buildParallelBlocks(LlmGraph& g, const std::function<TensorId(std::uint32_t, TensorId)>& attend) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"),
                              g.blockWeight(il, "attn_norm.bias"), false, static_cast<int>(il));
        TensorId ffnInput = cur;
        cur = attend(il, cur);
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
    // "if (f_logit_scale)": ggml_scale. cohere2 requires the key, command-r reads it where the file
    // has it (0 otherwise: no scale).
    if (model.logitScale != 0.0f) {
        logits = b.scale(logits);
    }
    b.setOutput(logits);
    b.expand(logits);
    return logits;
}

} // namespace

TensorId buildCommandRGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    return buildParallelBlocks(g, [&](std::uint32_t il, TensorId x) {
        const LayerInfo& info = model.layers.at(il);
        auto [q, k, v] = g.queryKeyValue(il, x, info.headCount, info.headCountKv, info.keyHeadDim);
        // "if (model.layers[il].attn_q_norm)": LLM_NORM over each head, weight [head_dim, heads].
        if (const TensorId qNorm = g.blockWeight(il, "attn_q_norm.weight"); qNorm != kNoTensor) {
            q = g.norm(q, qNorm, kNoTensor, false, static_cast<int>(il));
        }
        q = b.rope(q, g.inputPositions(), kNoTensor);
        if (const TensorId kNorm = g.blockWeight(il, "attn_k_norm.weight"); kNorm != kNoTensor) {
            k = g.norm(k, kNorm, kNoTensor, false, static_cast<int>(il));
        }
        k = b.rope(k, g.inputPositions(), kNoTensor);
        return g.attention(il, q, k, v);
    });
}

TensorId buildCohere2Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    return buildParallelBlocks(g, [&](std::uint32_t il, TensorId x) {
        const LayerInfo& info = model.layers.at(il);
        TensorId q = g.projectHeads(il, "attn_q", x, info.headCount, info.keyHeadDim);
        TensorId k = g.projectHeads(il, "attn_k", x, info.headCountKv, info.keyHeadDim);
        const TensorId v = g.projectHeads(il, "attn_v", x, info.headCountKv, info.keyHeadDim);
        // "if (is_swa)": RoPE (with the model's rope factors, where it has them) on the
        // sliding-window layers only.
        if (info.attention == AttentionKind::SlidingWindow) {
            const TensorId factors = g.ropeFactors(il);
            q = b.rope(q, g.inputPositions(), factors);
            k = b.rope(k, g.inputPositions(), factors);
        }
        return g.attention(il, q, k, v, {.iswa = true});
    });
}

} // namespace llamafit::graph

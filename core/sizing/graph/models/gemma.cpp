// The gemma family: llama.cpp src/models/gemma.cpp (Gemma 1, CodeGemma), gemma2-iswa.cpp and
// gemma3.cpp (llm_build_gemma3<iswa = true>). Scaled token embeddings, pre-norm attention with
// RoPE, Q scaled before the attention, a GEGLU feed-forward. Gemma 2 and 3 attend over two KV
// caches (the sliding-window layers' and the global layers') and add post-attention and post-FFN
// norms; gemma3 adds Q/K RMS norms; gemma2 soft-caps the attention scores (non-flash path) and the
// logits. Gemma 1 has one cache and neither post-norm.
#include "core/sizing/graph/models/modelbuilders.h"

namespace llamafit::graph {
namespace {

enum class Gemma { One, Two, Three };

TensorId buildGemma(LlmGraph& g, Gemma variant) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const auto T = static_cast<std::int64_t>(g.tokens());
    TensorId inpL = g.inputEmbeddings();
    if (variant == Gemma::Three) {
        // gemma3.cpp of b11669: the embeddings are scaled by sqrt(n_embd) for token rows only, as a
        // product with an input of one scale per row ("inp_scale_rows"; a raw embedding row keeps 1).
        inpL = b.mul(inpL, b.input(GgmlType::F32, {1, T, 1, 1}, "inp_scale_rows"));
    } else {
        // gemma.cpp and gemma2-iswa.cpp: ggml_scale(inpL, sqrtf(n_embd)).
        inpL = b.scale(inpL);
    }
    // b11669 expands the scaled embeddings before the first layer: gemma3's "inp_scale_rows" is
    // the leaf after the embedding inputs, ahead of blk.0's weights.
    b.expand(inpL);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        // Q, K, V projected and split into heads; gemma3 norms Q and K per head; RoPE on Q and K
        // (every layer; the sliding-window layers only change its base); Q scaled by
        // f_attention_scale before build_attn (whose kq_scale is 1).
        const auto project = [&](std::string_view name, std::int64_t heads, std::int64_t headDim) {
            return g.projectHeads(il, name, cur, heads, headDim);
        };
        const auto headNorm = [&](TensorId x, std::string_view name) {
            return variant == Gemma::Three ? g.norm(x, g.blockWeight(il, name), kNoTensor, true, layer) : x;
        };
        TensorId q = project("attn_q", info.headCount, info.keyHeadDim);
        q = b.rope(headNorm(q, "attn_q_norm.weight"), g.inputPositions());
        TensorId k = project("attn_k", info.headCountKv, info.keyHeadDim);
        k = b.rope(headNorm(k, "attn_k_norm.weight"), g.inputPositions());
        const TensorId v = project("attn_v", info.headCountKv, info.valueHeadDim);
        q = b.scale(q);
        // llama-model.cpp: gemma2 sets hparams.attn_soft_cap.
        cur =
            g.attention(il, q, k, v, {.iswa = variant != Gemma::One, .softcapLogits = variant == Gemma::Two});

        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpL = b.getRows(inpL, g.outputIds());
        }
        if (variant != Gemma::One) {
            cur = g.norm(cur, g.blockWeight(il, "post_attention_norm.weight"), kNoTensor, true, layer);
        }
        const TensorId attentionOut = b.add(cur, inpL);
        cur = g.norm(attentionOut, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        cur = g.feedForward(cur, il, GluOp::Geglu);
        if (variant != Gemma::One) {
            // The post-FFN norm is built with il = -1: graph_get_cb does not pin it.
            cur = g.norm(cur, g.blockWeight(il, "post_ffw_norm.weight"), kNoTensor, true, -1);
        }
        inpL = b.add(cur, attentionOut);
    }

    const TensorId normed = g.norm(inpL, g.weight("output_norm.weight"), kNoTensor, true, -1);
    b.setOutput(normed);
    TensorId logits = g.project(g.outputWeight(), normed);
    if (variant == Gemma::Two) {
        // "final logit soft-capping": scale, tanh, scale.
        logits = b.scale(b.unary(b.scale(logits), UnaryOp::Tanh));
    }
    b.setOutput(logits);
    b.expand(logits);
    return logits;
}

} // namespace

bool slidingWindowDense(const ModelInfo& model) {
    // llm_build_gemma2_iswa, llm_build_gemma3<true>, llm_build_cohere2_iswa: no experts, no
    // recurrent layers, and LLAMA_SWA_TYPE_STANDARD windows (no chunked attention).
    if (model.isMoe() || model.hasRecurrentLayers() || !model.hasSlidingWindowLayers()) {
        return false;
    }
    for (const LayerInfo& layer : model.layers) {
        if (layer.attention == AttentionKind::Chunked) {
            return false;
        }
    }
    return true;
}

TensorId buildGemmaGraph(LlmGraph& g) {
    return buildGemma(g, Gemma::One);
}

TensorId buildGemma2Graph(LlmGraph& g) {
    return buildGemma(g, Gemma::Two);
}

TensorId buildGemma3Graph(LlmGraph& g) {
    return buildGemma(g, Gemma::Three);
}

} // namespace llamafit::graph

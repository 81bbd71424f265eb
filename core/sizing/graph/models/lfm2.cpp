// LFM2: llama.cpp src/models/lfm2.cpp. Each layer is, after an RMS pre-norm, a gated short
// convolution over the recurrent conv state (recurrent.h buildShortConvLayer) where the layer
// holds recurrent state, else attention with per-head Q/K RMS norms and RoPE over the hybrid
// memory's KV cache; then the residual, an RMS-normed SwiGLU feed-forward and its residual. The
// last layer keeps only the output rows; the output norm is stored as token_embd_norm.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"
#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

bool denseShortConvHybrid(const ModelInfo& model) {
    // lfm2.cpp's iSWA variant (a sliding window on the attention layers) is not built here.
    return model.hasRecurrentLayers() && !model.isMoe() && !model.hasSlidingWindowLayers();
}

bool shortConvHybridExperts(const ModelInfo& model) {
    // lfm2moe's hparams.expert_gating_func, read without a default: 1 softmax, 2 sigmoid; no groups.
    return model.hasRecurrentLayers() && model.isMoe() && !model.hasSlidingWindowLayers() &&
           (model.expertGatingFunc == 1 || model.expertGatingFunc == 2) && model.expertGroupCount <= 1;
}

TensorId buildLfm2Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const RsInput rs = buildRsInput(g);
    // lfm2moe's layers past n_layer_dense_lead: build_moe_ffn(..., ffn_exp_probs_b, LLM_FFN_SILU,
    // norm_w = true, hparams.expert_weights_scale, hparams.expert_gating_func).
    const MoeOptions moe{.gating =
                             model.expertGatingFunc == 2 ? ExpertGating::Sigmoid : ExpertGating::Softmax,
                         .normalizeWeights = true,
                         .weightsScale = model.expertWeightsScale,
                         .selectionBias = true};
    // The token rows are expanded before the first layer (lfm2.cpp ggml_build_forward_expand).
    TensorId cur = g.inputEmbeddings();
    b.expand(cur);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int normLayer = static_cast<int>(il);
        TensorId prev = cur;
        cur = g.norm(cur, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, normLayer);
        if (info.recurrent) {
            cur = buildShortConvLayer(g, rs, cur, il);
        } else {
            // build_attn_block: Q, K and V split into heads, Q and K RMS-normed per head and
            // rotated, then build_attn with the output projection.
            const auto project = [&](std::string_view name, std::uint32_t heads, std::uint32_t headDim) {
                return g.projectHeads(il, name, cur, static_cast<std::int64_t>(heads),
                                      static_cast<std::int64_t>(headDim));
            };
            TensorId q = project("attn_q", info.headCount, info.keyHeadDim);
            q = g.norm(q, g.blockWeight(il, "attn_q_norm.weight"), kNoTensor, true, normLayer);
            q = b.rope(q, g.inputPositions());
            TensorId k = project("attn_k", info.headCountKv, info.keyHeadDim);
            k = g.norm(k, g.blockWeight(il, "attn_k_norm.weight"), kNoTensor, true, normLayer);
            k = b.rope(k, g.inputPositions());
            const TensorId v = project("attn_v", info.headCountKv, info.valueHeadDim);
            cur = g.attention(il, q, k, v);
        }
        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            prev = b.getRows(prev, g.outputIds());
        }
        // The residual is prev + cur (lfm2.cpp's operand order, which the graph's order follows).
        cur = b.add(prev, cur);
        TensorId ffn = g.norm(cur, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, normLayer);
        ffn = g.blockWeight(il, "ffn_gate_inp.weight") == kNoTensor ? g.feedForward(ffn, il)
                                                                    : buildMoeFeedForward(g, ffn, il, moe);
        cur = b.add(cur, ffn);
    }
    // llama-arch.cpp LLM_TENSOR_OUTPUT_NORM_LFM2: the output norm's weight is token_embd_norm.
    const TensorId normed = g.norm(cur, g.weight("token_embd_norm.weight"), kNoTensor, true, -1);
    b.setOutput(normed);
    const TensorId logits = g.project(g.outputWeight(), normed);
    b.setOutput(logits);
    b.expand(logits);
    return logits;
}

} // namespace llamafit::graph

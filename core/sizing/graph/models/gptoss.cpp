// gpt-oss: llama.cpp src/models/openai-moe-iswa.cpp (LLM_ARCH_OPENAI_MOE). Pre-norm attention with
// biased Q, K and V projections, RoPE, attention sinks, over two KV caches (the sliding-window
// layers' and the global layers'); the post-attention norm feeds build_moe_ffn with the router's
// and the experts' biases, SOFTMAX_WEIGHT gating and the swiglu_oai activation (moe.h); both
// residual; the last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

bool slidingWindowExperts(const ModelInfo& model) {
    // llm_build_openai_moe_iswa: routed experts, no shared expert, no recurrent layers, and
    // LLAMA_SWA_TYPE_STANDARD windows beside the global layers.
    if (!model.isMoe() || model.sharedExpertFeedForwardLength != 0 || model.hasRecurrentLayers()) {
        return false;
    }
    for (const LayerInfo& layer : model.layers) {
        if (layer.attention == AttentionKind::Chunked) {
            return false;
        }
    }
    return true;
}

TensorId buildGptOssGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const std::uint32_t layers = model.trunkLayerCount();
    // openai-moe-iswa.cpp: build_moe_ffn(..., LLM_FFN_SWIGLU_OAI_MOE, norm_w = false, w_scale = 0,
    // LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX_WEIGHT) with ffn_gate_inp_b and ffn_*_exps_b.
    MoeOptions moe;
    moe.gating = ExpertGating::SoftmaxWeight;
    moe.activation = ExpertActivation::SwigluOai;
    moe.biases = true;
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        // Q, K and V projected (each plus its bias where the model has one) and split into n_rot-wide
        // heads; RoPE on Q and K (the sliding-window layers only change its base); build_attn over
        // the iSWA cache with the layer's sinks and kq_scale 1/sqrt(n_rot) (no node).
        const auto project = [&](std::string_view name, std::int64_t heads) {
            return g.projectHeads(il, name, cur, heads, info.keyHeadDim);
        };
        TensorId q = b.rope(project("attn_q", info.headCount), g.inputPositions());
        TensorId k = b.rope(project("attn_k", info.headCountKv), g.inputPositions());
        const TensorId v = project("attn_v", info.headCountKv);
        cur = g.attention(il, q, k, v, {.iswa = true, .sinks = g.blockWeight(il, "attn_sinks.weight")});

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "post_attention_norm.weight"), kNoTensor, true, layer);
        cur = buildMoeFeedForward(g, cur, il, moe);
        inpL = b.add(cur, ffnInput);
    }
    // b11669 marks the last layer's output (the hidden state before the output norm) a graph output
    // for gpt-oss: l_out-<n_layer - 1> carries GGML_TENSOR_FLAG_OUTPUT in every gpt-oss plan of
    // tests/data/plans and in no other architecture's. The stored openai-moe-iswa.cpp does not show
    // the call; the plans are the truth here. ggml-alloc never frees an output.
    b.setOutput(inpL);
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

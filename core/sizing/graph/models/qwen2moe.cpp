// Qwen1.5-MoE and Qwen2-MoE: llama.cpp src/models/qwen2moe.cpp. Qwen2's attention (pre-norm,
// build_qkv with the Q/K/V biases, RoPE, the KV cache) and, in place of the dense feed-forward,
// build_moe_ffn (softmax gating, weights not normalised, scaled by expert_weights_scale where the
// file sets it) plus the shared expert's SwiGLU scaled per token by a gate, sigmoid(x) written as
// silu(x) / x over ffn_gate_inp_shexp * x; both residual. The last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {

bool routedAndSharedExperts(const ModelInfo& model) {
    return model.isMoe() && !model.hasRecurrentLayers() && !model.hasSlidingWindowLayers();
}

TensorId buildQwen2MoeGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    MoeOptions moe;
    moe.gating = ExpertGating::Softmax;
    moe.activation = ExpertActivation::Silu;
    moe.normalizeWeights = false;
    moe.weightsScale = model.expertWeightsScale;
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);
        cur = g.qkvAttention(il, cur, positions);

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        const TensorId routed = buildMoeFeedForward(g, cur, il, moe);
        const TensorId gateInput = g.project(g.blockWeight(il, "ffn_gate_inp_shexp.weight"), cur);
        const TensorId gate = b.div(b.unary(gateInput, UnaryOp::Silu), gateInput);
        const TensorId shared = b.mul(buildSharedExpertsFeedForward(g, cur, il), gate);
        inpL = b.add(b.add(routed, shared), ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

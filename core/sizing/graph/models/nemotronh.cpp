// Nemotron-H and Nemotron-H MoE (Nemotron 3 Nano): llama.cpp src/models/nemotron-h.cpp, which
// builds both. Each layer is one of three kinds after an RMS pre-norm: a Mamba-2 block
// (recurrent.h) where it holds recurrent state, attention (no RoPE) where it holds a KV cache, else
// a feed-forward (build_ffn_layer): of squared ReLU (build_ffn LLM_FFN_RELU_SQR, no gate), or where
// the layer has a router, build_moe_ffn with sigmoid gating, the experts' selection bias and
// squared-ReLU experts (through a latent projection where the model has one) beside a squared-ReLU
// shared expert; then the residual. The last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"
#include "core/sizing/graph/recurrent.h"

#include <string>

namespace llamafit::graph {
namespace {

// build_ffn(LLM_FFN_RELU_SQR, no gate) over blk.N.<up> and blk.N.<down>, with their biases where the
// model has them.
TensorId squaredReluFeedForward(LlmGraph& g, TensorId x, std::uint32_t il, std::string_view up,
                                std::string_view down) {
    GraphBuilder& b = g.builder();
    const std::string upName(up);
    const std::string downName(down);
    TensorId cur = g.addBias(g.project(g.blockWeight(il, upName + ".weight"), x), il, upName + ".bias");
    cur = b.sqr(b.unary(cur, UnaryOp::Relu));
    return g.addBias(g.project(g.blockWeight(il, downName + ".weight"), cur), il, downName + ".bias");
}

// build_ffn_layer's MoE branch.
TensorId mixtureOfExperts(LlmGraph& g, TensorId x, std::uint32_t il) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const MoeOptions moe{.gating = ExpertGating::Sigmoid,
                         .activation = ExpertActivation::ReluSqr,
                         .normalizeWeights = model.expertWeightsNorm,
                         .weightsScale = model.expertWeightsScale,
                         .selectionBias = true};
    // The latent projections are plain ggml_mul_mat (no LoRA branch); the router reads the input
    // itself.
    const TensorId latentDown = g.blockWeight(il, "ffn_latent_down.weight");
    const TensorId latent = latentDown == kNoTensor ? x : b.mulMat(latentDown, x);
    const TensorId routerLogits = g.project(g.blockWeight(il, "ffn_gate_inp.weight"), x);
    TensorId routed = buildMoeFeedForward(g, latent, il, moe, routerLogits);
    if (const TensorId latentUp = g.blockWeight(il, "ffn_latent_up.weight"); latentUp != kNoTensor) {
        routed = b.mulMat(latentUp, routed);
    }
    return b.add(routed, squaredReluFeedForward(g, x, il, "ffn_up_shexp", "ffn_down_shexp"));
}

} // namespace

bool denseRecurrentStack(const ModelInfo& model) {
    return model.hasRecurrentLayers() && !model.isMoe();
}

bool recurrentMoeStack(const ModelInfo& model) {
    // nemotron-h.cpp names no expert groups; its experts have no gate (a gated squared ReLU aborts).
    return model.hasRecurrentLayers() && model.isMoe() && model.expertGroupCount <= 1;
}

TensorId buildNemotronHGraph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const RsInput rs = buildRsInput(g);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        TensorId cur =
            g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, static_cast<int>(il));
        if (info.recurrent) {
            cur = buildMamba2Layer(g, rs, cur, il);
        } else if (info.hasKv) {
            cur = g.attentionWithoutRope(il, cur);
        } else if (g.blockWeight(il, "ffn_gate_inp.weight") != kNoTensor) {
            cur = mixtureOfExperts(g, cur, il);
        } else {
            cur = squaredReluFeedForward(g, cur, il, "ffn_up", "ffn_down");
        }
        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpL = b.getRows(inpL, g.outputIds());
        }
        inpL = b.add(cur, inpL);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph

// Qwen3-Next and Qwen3.5 (dense and MoE): llama.cpp src/models/qwen3next.cpp, src/models/qwen35.cpp
// and src/models/qwen35moe.cpp, on llm_build_delta_net_base. Each layer is, after an RMS pre-norm, a gated
// delta-net (deltanet.h) where the layer holds recurrent state, else gated attention: Q projected together
// with an output gate, Q and K RMS-normed per head and rotated (NeoX RoPE; Qwen3.5's interleaved M-RoPE reads
// four positions per token), attention over the hybrid memory's KV cache, its output times sigmoid(gate),
// then wo. The residual, a post-attention RMS norm, routed experts (softmax gating, normalised weights) plus
// a sigmoid-gated shared expert (qwen35.cpp: a dense SwiGLU FFN, its graph otherwise qwen35moe.cpp's node for
// node), and the residual again. The last layer keeps only the output rows.
#include "core/sizing/graph/deltanet.h"
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {
namespace {

// The architectures' differences (their two src/models files).
struct Qwen3NextVariant {
    DeltaNetOptions deltaNet;
    // qwen35moe.cpp: Q and its gate are strided 3-D views of the projection (ggml_view_3d);
    // qwen3next.cpp reshapes the projection to [2 * head_dim, heads, tokens, 1] first.
    bool gateViewOfProjection = false;
    // llama-hparams.cpp n_pos_per_embd: 4 positions per token under M-RoPE / IMRoPE (qwen35moe's
    // rope type, llama-model.cpp llama_model_rope_type), else 1.
    std::int64_t positionsPerToken = 1;
};

// build_layer_attn: the gated full-attention layer, [n_embd, tokens] in and out.
TensorId gatedAttention(LlmGraph& g, TensorId cur, TensorId positions, std::uint32_t il,
                        const Qwen3NextVariant& variant) {
    GraphBuilder& b = g.builder();
    const LayerInfo& info = g.model().layers.at(il);
    const auto heads = static_cast<std::int64_t>(info.headCount);
    const auto headsKv = static_cast<std::int64_t>(info.headCountKv);
    const auto headDim = static_cast<std::int64_t>(info.valueHeadDim);
    const auto T = static_cast<std::int64_t>(g.tokens());
    const int normLayer = static_cast<int>(il);

    // One projection gives each head's query and then its gate, side by side.
    const TensorId full = g.project(g.blockWeight(il, "attn_q.weight"), cur);
    const TensorId split = variant.gateViewOfProjection ? full : b.reshape(full, {2 * headDim, heads, T, 1});
    const std::uint64_t headStride = b[full].nb[0] * static_cast<std::uint64_t>(2 * headDim);
    const std::uint64_t tokenStride = headStride * static_cast<std::uint64_t>(heads);
    const auto half = [&](std::uint64_t offset) {
        return b.view(split, {headDim, heads, T, 1},
                      {headStride, tokenStride, tokenStride * static_cast<std::uint64_t>(T)}, offset);
    };
    TensorId q = half(0);
    TensorId gate = half(static_cast<std::uint64_t>(headDim) * b[full].nb[0]);
    q = g.norm(q, g.blockWeight(il, "attn_q_norm.weight"), kNoTensor, true, normLayer);
    TensorId k = b.reshape(g.project(g.blockWeight(il, "attn_k.weight"), cur), {headDim, headsKv, T, 1});
    const TensorId v =
        b.reshape(g.project(g.blockWeight(il, "attn_v.weight"), cur), {headDim, headsKv, T, 1});
    k = g.norm(k, g.blockWeight(il, "attn_k_norm.weight"), kNoTensor, true, normLayer);
    q = b.rope(q, positions);
    k = b.rope(k, positions);

    // build_attn with no wo: the output is gated first ("TODO: CUDA is missing non-contiguous
    // unary ops": the gate made contiguous as [head_dim * heads, tokens]).
    AttentionOptions options;
    options.projectOutput = false;
    cur = g.attention(il, q, k, v, options);
    gate = b.unary(b.cont(gate, {headDim * heads, T, 1, 1}), UnaryOp::Sigmoid);
    cur = b.mul(cur, gate);
    return g.project(g.blockWeight(il, "attn_output.weight"), cur);
}

// build_layer_ffn: the routed experts, plus the shared expert (build_ffn, SiLU, parallel gate)
// scaled by sigmoid(ffn_gate_inp_shexp * x) where the layer has one; a dense SwiGLU without a router.
TensorId expertsWithSharedExpert(LlmGraph& g, TensorId x, std::uint32_t il) {
    GraphBuilder& b = g.builder();
    if (g.blockWeight(il, "ffn_gate_inp.weight") == kNoTensor) {
        return g.feedForward(x, il);
    }
    // build_moe_ffn(..., LLM_FFN_SILU, norm_w = true, hparams.expert_weights_scale, SOFTMAX); the
    // models here carry no expert_weights_scale (0).
    MoeOptions moe;
    moe.gating = ExpertGating::Softmax;
    moe.activation = ExpertActivation::Silu;
    moe.normalizeWeights = true;
    const TensorId routed = buildMoeFeedForward(g, x, il, moe);
    const TensorId upShared = g.blockWeight(il, "ffn_up_shexp.weight");
    if (upShared == kNoTensor) {
        return routed;
    }
    const TensorId up = g.project(upShared, x);
    const TensorId gate = g.project(g.blockWeight(il, "ffn_gate_shexp.weight"), x);
    TensorId shared = g.project(g.blockWeight(il, "ffn_down_shexp.weight"), b.glu(gate, up, GluOp::Swiglu));
    const TensorId sharedGate =
        b.unary(g.project(g.blockWeight(il, "ffn_gate_inp_shexp.weight"), x), UnaryOp::Sigmoid);
    shared = b.mul(shared, sharedGate);
    return b.add(routed, shared);
}

TensorId buildQwen3NextFamily(LlmGraph& g, const Qwen3NextVariant& variant) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const RsInput rs = buildRsInput(g);
    const TensorId positions = g.inputPositions(variant.positionsPerToken);
    // MTP/NextN blocks are loaded but not run by the main graph.
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const int normLayer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, normLayer);
        b.expand(cur);
        if (model.layers.at(il).recurrent) {
            cur = buildDeltaNetLayer(g, rs, cur, il, variant.deltaNet);
        } else {
            cur = gatedAttention(g, cur, positions, il, variant);
        }
        // b11669 (the plans) keeps only the output rows in the last layer; the index's source does
        // so only with cparams.embeddings_nextn_masked, else after the output norm.
        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpSA = b.getRows(inpSA, g.outputIds());
        }
        cur = b.add(cur, inpSA);
        const TensorId ffnResidual = cur;
        const TensorId postNorm =
            g.norm(cur, g.blockWeight(il, "post_attention_norm.weight"), kNoTensor, true, normLayer);
        cur = expertsWithSharedExpert(g, postNorm, il);
        inpL = b.add(cur, ffnResidual);
    }
    return g.outputHead(inpL);
}

// GGML_OP_GATED_DELTA_NET's head sizes on Vulkan (ggml-vulkan.cpp supports_op: S_v 16, 32, 64 or
// 128; the CPU takes any).
bool fusedDeltaNetHeadSize(std::int64_t headSize) {
    return headSize == 16 || headSize == 32 || headSize == 64 || headSize == 128;
}

} // namespace

bool deltaNetHybrid(const ModelInfo& model) {
    // Only the fused delta net is built (build_delta_net_fused): resolve_fused_ops
    // (llama-context.cpp) turns it off where GATED_DELTA_NET leaves the layer's device, which for
    // the backends the engine knows happens only on Vulkan outside the shader's head sizes; those
    // models keep the closed forms.
    return model.hasRecurrentLayers() && !model.hasSlidingWindowLayers() &&
           fusedDeltaNetHeadSize(deltaNetHeadSize(model));
}

TensorId buildQwen3NextGraph(LlmGraph& g) {
    Qwen3NextVariant variant;
    variant.deltaNet.fusedBetaAlpha = true;
    variant.deltaNet.repeatKeyHeads = true;
    return buildQwen3NextFamily(g, variant);
}

TensorId buildQwen35Graph(LlmGraph& g) {
    // qwen35.cpp and qwen35moe.cpp: the repeat only "if we are not using the fused GDN" (fused_gdn_ar and
    // fused_gdn_ch both on here).
    Qwen3NextVariant variant;
    variant.deltaNet.fusedBetaAlpha = false;
    variant.deltaNet.repeatKeyHeads = false;
    variant.gateViewOfProjection = true;
    variant.positionsPerToken = 4;
    return buildQwen3NextFamily(g, variant);
}

} // namespace llamafit::graph

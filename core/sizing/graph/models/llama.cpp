// The dense attention family: llama.cpp src/models/llama.cpp, qwen2.cpp (Q/K/V biases), qwen3.cpp
// (Q/K RMS norms), qwen2vl.cpp (qwen2's layers with M-RoPE), mistral3.cpp's dense layers (Q
// scaled by the attention temperature input), qwen3vl.cpp (qwen3's layers with M-RoPE and the
// deepstack: the first layers add a slice of the wider input embeddings), seed-oss.cpp (Q/K/V
// biases, the feed-forward's norm weight named attn_post_norm), ernie4-5.cpp and internlm2.cpp
// (llama's layers without RoPE factors) and smollm3.cpp (every fourth layer without RoPE), which
// differ only in the tensors a layer has, the positions and factors RoPE reads and that scaling:
// pre-norm attention with RoPE over the KV cache, then a SwiGLU feed-forward, both residual; the
// last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"

#include <string>

namespace llamafit::graph {
namespace {

// `positionsPerToken`: llama-hparams.cpp n_pos_per_embd, 4 under M-RoPE (qwen2vl.cpp's
// ggml_rope_multi reads four positions per token from build_inp_pos), else 1. `ropeFactors`:
// llama.cpp's rope reads the layer's model.get_rope_factors (the model's rope_freqs, where it has
// one); qwen2.cpp, qwen3.cpp and qwen2vl.cpp pass none. `temperatureTuning`: mistral3.cpp's
// "(optional) temperature tuning" where the file sets attention.temperature_scale. `feedForwardNorm`:
// the feed-forward's norm weight. `noRopeLayerStep`: hparams.n_no_rope_layer_step, the layers il
// with (il + 1) % step == 0 attending without RoPE (smollm3.cpp's use_rope); 0: every layer rotates.
struct DenseAttentionOptions {
    std::int64_t positionsPerToken = 1;
    bool ropeFactors = false;
    bool temperatureTuning = false;
    std::string_view feedForwardNorm = "ffn_norm.weight";
    std::uint32_t noRopeLayerStep = 0;
};

TensorId buildDenseAttentionGraph(LlmGraph& g, const DenseAttentionOptions& options) {
    const std::int64_t positionsPerToken = options.positionsPerToken;
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const TensorId inputEmbeddings = g.inputEmbeddings();
    TensorId inpL = inputEmbeddings;
    const TensorId positions = g.inputPositions(positionsPerToken);
    // build_inp_attn_scale: one factor per token ([1, 1, n_tokens]) that multiplies Q.
    TensorId attentionScale = kNoTensor;
    if (options.temperatureTuning && model.attentionTemperatureScale != 0.0f) {
        attentionScale =
            b.input(GgmlType::F32, {1, 1, static_cast<std::int64_t>(g.tokens()), 1}, "attn_scale");
    }
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const auto heads = static_cast<std::int64_t>(info.headCount);
        const auto headsKv = static_cast<std::int64_t>(info.headCountKv);
        TensorId inpSA = inpL;
        TensorId cur =
            g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, static_cast<int>(il));

        // Q, K and V: projected (with their biases, where the model has them), split into heads,
        // normed per head where the model has Q/K norms, and rotated (RoPE) but V.
        const auto project = [&](std::string_view name, std::int64_t heads, std::int64_t headDim) {
            return g.projectHeads(il, name, cur, heads, headDim);
        };
        const TensorId factors = options.ropeFactors ? g.ropeFactors(il) : kNoTensor;
        const bool rotates = options.noRopeLayerStep == 0 || (il + 1) % options.noRopeLayerStep != 0;
        const auto rope = [&](TensorId x) { return rotates ? b.rope(x, positions, factors) : x; };
        TensorId q = project("attn_q", heads, info.keyHeadDim);
        q = rope(g.normWherePresent(il, q, "attn_q_norm.weight"));
        TensorId k = project("attn_k", headsKv, info.keyHeadDim);
        k = rope(g.normWherePresent(il, k, "attn_k_norm.weight"));
        if (attentionScale != kNoTensor) {
            q = b.mul(q, attentionScale); // "apply llama 4 temperature scaling"
        }
        const TensorId v = project("attn_v", headsKv, info.valueHeadDim);
        cur = g.attention(il, q, k, v);

        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, options.feedForwardNorm), kNoTensor, true,
                     static_cast<int>(il));
        cur = g.feedForward(cur, il);
        inpL = g.addDeepstack(b.add(cur, ffnInput), inputEmbeddings, il);
    }
    return g.outputHead(inpL);
}

} // namespace

TensorId buildLlamaGraph(LlmGraph& g) {
    const std::string& architecture = g.model().architecture;
    const bool mistral3 = architecture == "mistral3";
    DenseAttentionOptions options;
    options.ropeFactors = architecture == "llama" || mistral3;
    options.temperatureTuning = mistral3;
    if (architecture == "seed_oss") {
        options.feedForwardNorm = "post_attention_norm.weight";
    }
    if (architecture == "smollm3") {
        options.noRopeLayerStep = 4; // smollm3.cpp load_arch_hparams: fixed, not read from the file
    }
    return buildDenseAttentionGraph(g, options);
}

TensorId buildQwenVlGraph(LlmGraph& g) {
    return buildDenseAttentionGraph(g, {.positionsPerToken = 4});
}

} // namespace llamafit::graph

// Builders for the sizing tests' ModelInfo values. Tensor names, roles and shapes follow
// llama.cpp src/llama-arch.cpp and the models' load_arch_tensors; bytes are ggml_nbytes.
#include "tests/unit/sizing/testmodels.h"

#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "tests/support/modelfiles.h"
#include "tests/support/shapecut.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace llamafit::test {
namespace {

class TensorTable {
  public:
    explicit TensorTable(ModelInfo& model) : m_model(model) {}

    void add(const std::string& name, TensorRole role, int layer, GgmlType type,
             std::initializer_list<std::uint64_t> shape, bool expert = false) {
        TensorSummary t;
        t.name = name;
        t.role = role;
        t.layer = layer;
        t.expert = expert;
        t.type = type;
        auto it = shape.begin();
        t.rowValues = *it++;
        std::uint64_t rows = 1;
        for (; it != shape.end(); ++it) {
            rows *= *it;
        }
        t.bytes = ggmlRowBytes(type, t.rowValues) * rows;
        m_model.tensors.push_back(t);
        m_model.fileBytes += t.bytes;
    }
    void block(int il, const std::string& suffix, GgmlType type, std::initializer_list<std::uint64_t> shape,
               bool expert = false) {
        add("blk." + std::to_string(il) + "." + suffix, TensorRole::Layer, il, type, shape, expert);
    }

  private:
    ModelInfo& m_model;
};

LayerInfo attentionLayer(std::uint32_t heads, std::uint32_t kvHeads, std::uint32_t headDim,
                         std::uint32_t ff) {
    LayerInfo layer;
    layer.attention = AttentionKind::Full;
    layer.hasKv = true;
    layer.headCount = heads;
    layer.headCountKv = kvHeads;
    layer.keyHeadDim = headDim;
    layer.valueHeadDim = headDim;
    layer.feedForwardLength = ff;
    return layer;
}

struct LlamaShape {
    std::uint32_t embd, blocks, heads, kvHeads, headDim, ff, vocab;
    bool tied;
    GgmlType weights;
};

ModelInfo llamaModel(const std::string& name, const LlamaShape& s) {
    ModelInfo m;
    m.architecture = "llama";
    m.name = name;
    m.blockCount = s.blocks;
    m.trainingContext = 131072;
    m.embeddingLength = s.embd;
    m.headCount = s.heads;
    m.vocabularySize = s.vocab;
    m.tiedOutput = s.tied;
    TensorTable t(m);
    const GgmlType w = s.weights;
    const std::uint64_t q = std::uint64_t{s.heads} * s.headDim;
    const std::uint64_t kv = std::uint64_t{s.kvHeads} * s.headDim;
    t.add("token_embd.weight", TensorRole::TokenEmbedding, -1, w, {s.embd, s.vocab});
    t.add("output_norm.weight", TensorRole::Output, -1, GgmlType::F32, {s.embd});
    if (!s.tied) {
        t.add("output.weight", TensorRole::Output, -1, w, {s.embd, s.vocab});
    }
    for (std::uint32_t il = 0; il < s.blocks; ++il) {
        const int l = static_cast<int>(il);
        t.block(l, "attn_norm.weight", GgmlType::F32, {s.embd});
        t.block(l, "attn_q.weight", w, {s.embd, q});
        t.block(l, "attn_k.weight", w, {s.embd, kv});
        t.block(l, "attn_v.weight", w, {s.embd, kv});
        t.block(l, "attn_output.weight", w, {q, s.embd});
        t.block(l, "ffn_norm.weight", GgmlType::F32, {s.embd});
        t.block(l, "ffn_gate.weight", w, {s.embd, s.ff});
        t.block(l, "ffn_up.weight", w, {s.embd, s.ff});
        t.block(l, "ffn_down.weight", w, {s.ff, s.embd});
        m.layers.push_back(attentionLayer(s.heads, s.kvHeads, s.headDim, s.ff));
    }
    return m;
}

// downType: the expert down projection has rows of n_ff_exp values, which K-quants (256 per
// block) cannot always take; quantizers fall back to a 32-block type there.
void expertBlock(TensorTable& t, int il, std::uint64_t embd, std::uint64_t experts, std::uint64_t ffExp,
                 std::uint64_t ffShared, GgmlType w, GgmlType downType) {
    t.block(il, "ffn_gate_inp.weight", GgmlType::F32, {embd, experts});
    t.block(il, "ffn_gate_exps.weight", w, {embd, ffExp, experts}, true);
    t.block(il, "ffn_up_exps.weight", w, {embd, ffExp, experts}, true);
    t.block(il, "ffn_down_exps.weight", downType, {ffExp, embd, experts}, true);
    t.block(il, "ffn_gate_shexp.weight", w, {embd, ffShared});
    t.block(il, "ffn_up_shexp.weight", w, {embd, ffShared});
    t.block(il, "ffn_down_shexp.weight", w, {ffShared, embd});
}

} // namespace

ModelInfo llama1B(GgmlType weights) {
    return llamaModel("llama-1B", {2048, 16, 32, 8, 64, 8192, 128256, true, weights});
}

ModelInfo llama3_8B(GgmlType weights) {
    return llamaModel("llama-3-8B", {4096, 32, 32, 8, 128, 14336, 128256, false, weights});
}

ModelInfo llamaLike(const LlamaLikeShape& s) {
    return llamaModel("llama-like", {s.embd, s.blocks, s.heads, s.kvHeads, s.headDim, s.feedForward, s.vocab,
                                     false, GgmlType::F16});
}

ModelInfo llamaHeadDim80() {
    ModelInfo m = llamaModel("llama-hd80", {2560, 4, 32, 8, 80, 6912, 32000, false, GgmlType::F16});
    m.trainingContext = 4096;
    return m;
}

ModelInfo qwen35_35B_A3B() {
    Qwen35Shape shape;
    shape.vocab = 248320;
    shape.blocks = 40;
    ModelInfo m = qwen35Like(shape);
    m.name = "Qwen3.5-35B-A3B";
    return m;
}

ModelInfo qwen35Like(const Qwen35Shape& s) {
    ModelInfo m;
    m.architecture = s.experts > 0 ? "qwen35moe" : "qwen35";
    m.name = "qwen35-like";
    m.blockCount = s.blocks;
    m.trainingContext = 262144;
    m.embeddingLength = s.embd;
    m.headCount = s.heads;
    m.vocabularySize = s.vocab;
    m.expertCount = s.experts;
    m.expertUsedCount = s.used;
    m.expertFeedForwardLength = s.experts > 0 ? s.expertFeedForward : 0;
    m.sharedExpertFeedForwardLength = s.experts > 0 ? s.sharedFeedForward : 0;
    m.ssmConvKernel = 4;
    m.ssmInnerSize = s.inner;
    m.ssmStateSize = 128;
    m.ssmGroupCount = s.groups;
    const GgmlType w = GgmlType::Q8_0;
    const std::uint64_t e = s.embd, state = 128;
    // src/models/qwen35moe.cpp: head_k_dim = head_v_dim = d_state, n_k_heads = n_group, n_v_heads = dt_rank.
    const std::uint64_t keyDim = state * s.groups, valueDim = state * s.dtRank,
                        convDim = 2 * keyDim + valueDim;
    TensorTable t(m);
    t.add("token_embd.weight", TensorRole::TokenEmbedding, -1, w, {e, s.vocab});
    t.add("output_norm.weight", TensorRole::Output, -1, GgmlType::F32, {e});
    t.add("output.weight", TensorRole::Output, -1, w, {e, s.vocab});
    for (int il = 0; il < static_cast<int>(s.blocks); ++il) {
        LayerInfo layer;
        t.block(il, "attn_norm.weight", GgmlType::F32, {e});
        t.block(il, "post_attention_norm.weight", GgmlType::F32, {e});
        if ((il + 1) % 4 == 0) {
            // attn_q carries the output gate: 2 * n_head * head_dim.
            layer = attentionLayer(s.heads, s.kvHeads, s.headDim, s.feedForward);
            t.block(il, "attn_q.weight", w, {e, 2ull * s.heads * s.headDim});
            t.block(il, "attn_k.weight", w, {e, std::uint64_t{s.kvHeads} * s.headDim});
            t.block(il, "attn_v.weight", w, {e, std::uint64_t{s.kvHeads} * s.headDim});
            t.block(il, "attn_output.weight", w, {std::uint64_t{s.heads} * s.headDim, e});
            t.block(il, "attn_q_norm.weight", GgmlType::F32, {s.headDim});
            t.block(il, "attn_k_norm.weight", GgmlType::F32, {s.headDim});
        } else {
            layer.attention = AttentionKind::None;
            layer.hasKv = false;
            layer.recurrent = true;
            layer.headCount = s.heads;
            layer.headCountKv = s.kvHeads;
            layer.feedForwardLength = s.feedForward;
            // llama-hparams.cpp: n_embd_r = (d_conv-1)*(d_inner + 2*n_group*d_state), n_embd_s =
            // d_state*d_inner.
            layer.recurrentConvWidth = 3 * (std::uint64_t{s.inner} + 2ull * s.groups * state);
            layer.recurrentStateWidth = state * s.inner;
            t.block(il, "attn_qkv.weight", w, {e, convDim});
            t.block(il, "attn_gate.weight", w, {e, valueDim});
            t.block(il, "ssm_conv1d.weight", GgmlType::F32, {4, convDim});
            t.block(il, "ssm_dt.bias", GgmlType::F32, {s.dtRank});
            t.block(il, "ssm_a", GgmlType::F32, {s.dtRank});
            t.block(il, "ssm_beta.weight", w, {e, s.dtRank});
            t.block(il, "ssm_alpha.weight", w, {e, s.dtRank});
            t.block(il, "ssm_norm.weight", GgmlType::F32, {state});
            t.block(il, "ssm_out.weight", w, {valueDim, e});
        }
        if (s.experts > 0) {
            expertBlock(t, il, e, s.experts, s.expertFeedForward, s.sharedFeedForward, w, w);
            t.block(il, "ffn_gate_inp_shexp.weight", GgmlType::F32, {e});
        } else {
            t.block(il, "ffn_gate.weight", w, {e, s.feedForward});
            t.block(il, "ffn_up.weight", w, {e, s.feedForward});
            t.block(il, "ffn_down.weight", w, {s.feedForward, e});
        }
        m.layers.push_back(layer);
    }
    return m;
}

ModelInfo qwen3MoeLike(const Qwen3MoeShape& s) {
    ModelInfo m;
    m.architecture = "qwen3moe";
    m.name = "qwen3moe-like";
    m.blockCount = 2;
    m.trainingContext = 131072;
    m.embeddingLength = s.embd;
    m.headCount = s.heads;
    m.vocabularySize = 32000;
    m.expertCount = s.experts;
    m.expertUsedCount = s.used;
    m.expertFeedForwardLength = s.expertFeedForward;
    const GgmlType w = GgmlType::Q8_0;
    const std::uint64_t e = s.embd, q = std::uint64_t{s.heads} * s.headDim,
                        kv = std::uint64_t{s.kvHeads} * s.headDim;
    TensorTable t(m);
    t.add("token_embd.weight", TensorRole::TokenEmbedding, -1, w, {e, 32000});
    t.add("output_norm.weight", TensorRole::Output, -1, GgmlType::F32, {e});
    t.add("output.weight", TensorRole::Output, -1, w, {e, 32000});
    for (int il = 0; il < 2; ++il) {
        m.layers.push_back(attentionLayer(s.heads, s.kvHeads, s.headDim, 0));
        t.block(il, "attn_norm.weight", GgmlType::F32, {e});
        t.block(il, "attn_q.weight", w, {e, q});
        t.block(il, "attn_k.weight", w, {e, kv});
        t.block(il, "attn_v.weight", w, {e, kv});
        t.block(il, "attn_output.weight", w, {q, e});
        t.block(il, "attn_q_norm.weight", GgmlType::F32, {s.headDim});
        t.block(il, "attn_k_norm.weight", GgmlType::F32, {s.headDim});
        t.block(il, "ffn_norm.weight", GgmlType::F32, {e});
        t.block(il, "ffn_gate_inp.weight", GgmlType::F32, {e, s.experts});
        t.block(il, "ffn_gate_exps.weight", w, {e, s.expertFeedForward, s.experts}, true);
        t.block(il, "ffn_up_exps.weight", w, {e, s.expertFeedForward, s.experts}, true);
        t.block(il, "ffn_down_exps.weight", w, {s.expertFeedForward, e, s.experts}, true);
    }
    return m;
}

ModelInfo gemma3_1B() {
    ModelInfo m;
    m.architecture = "gemma3";
    m.name = "gemma-3-1B";
    m.blockCount = 26;
    m.trainingContext = 32768;
    m.embeddingLength = 1152;
    m.headCount = 4;
    m.vocabularySize = 262144;
    m.slidingWindow = 512;
    m.tiedOutput = true;
    const GgmlType w = GgmlType::Q8_0;
    const std::uint64_t e = 1152, ff = 6912, q = 4 * 256, kv = 256;
    TensorTable t(m);
    t.add("token_embd.weight", TensorRole::TokenEmbedding, -1, w, {e, 262144});
    t.add("output_norm.weight", TensorRole::Output, -1, GgmlType::F32, {e});
    for (int il = 0; il < 26; ++il) {
        LayerInfo layer = attentionLayer(4, 1, 256, 6912);
        // gemma3 sliding_window_pattern 6: SWA iff il % 6 < 5, so blocks 5, 11, 17, 23 are dense.
        layer.attention = il % 6 < 5 ? AttentionKind::SlidingWindow : AttentionKind::Full;
        m.layers.push_back(layer);
        t.block(il, "attn_norm.weight", GgmlType::F32, {e});
        t.block(il, "attn_q.weight", w, {e, q});
        t.block(il, "attn_k.weight", w, {e, kv});
        t.block(il, "attn_v.weight", w, {e, kv});
        t.block(il, "attn_q_norm.weight", GgmlType::F32, {256});
        t.block(il, "attn_k_norm.weight", GgmlType::F32, {256});
        t.block(il, "attn_output.weight", w, {q, e});
        t.block(il, "post_attention_norm.weight", GgmlType::F32, {e});
        t.block(il, "ffn_norm.weight", GgmlType::F32, {e});
        t.block(il, "ffn_gate.weight", w, {e, ff});
        t.block(il, "ffn_up.weight", w, {e, ff});
        t.block(il, "ffn_down.weight", w, {ff, e});
        t.block(il, "post_ffw_norm.weight", GgmlType::F32, {e});
    }
    return m;
}

ModelInfo deepseekMlaLite() {
    ModelInfo m;
    m.architecture = "deepseek2";
    m.name = "deepseek-v2-lite-like";
    m.blockCount = 27;
    m.trainingContext = 163840;
    m.embeddingLength = 2048;
    m.headCount = 16;
    m.vocabularySize = 102400;
    m.mla = true;
    m.expertCount = 64;
    m.expertUsedCount = 6;
    m.expertFeedForwardLength = 1408;
    m.sharedExpertFeedForwardLength = 2816;
    const GgmlType w = GgmlType::Q4_K;
    const std::uint64_t e = 2048, heads = 16, loraRank = 512, rope = 64, qkNope = 128, vHead = 128;
    TensorTable t(m);
    t.add("token_embd.weight", TensorRole::TokenEmbedding, -1, w, {e, 102400});
    t.add("output_norm.weight", TensorRole::Output, -1, GgmlType::F32, {e});
    t.add("output.weight", TensorRole::Output, -1, GgmlType::Q6_K, {e, 102400});
    for (int il = 0; il < 27; ++il) {
        // src/models/deepseek2.cpp: the MLA cache keeps one latent of kv_lora_rank + rope per token
        // (key_length 576, head_count_kv 1) and no V tensor.
        LayerInfo layer = attentionLayer(16, 1, 576, il == 0 ? 10944 : 0);
        layer.valueHeadDim = 0;
        m.layers.push_back(layer);
        t.block(il, "attn_norm.weight", GgmlType::F32, {e});
        t.block(il, "attn_q.weight", w, {e, heads * (qkNope + rope)});
        t.block(il, "attn_kv_a_mqa.weight", w, {e, loraRank + rope});
        t.block(il, "attn_kv_a_norm.weight", GgmlType::F32, {loraRank});
        t.block(il, "attn_k_b.weight", GgmlType::Q8_0, {qkNope, loraRank, heads});
        t.block(il, "attn_v_b.weight", GgmlType::Q8_0, {loraRank, vHead, heads});
        t.block(il, "attn_output.weight", w, {heads * vHead, e});
        t.block(il, "ffn_norm.weight", GgmlType::F32, {e});
        if (il == 0) {
            t.block(il, "ffn_gate.weight", w, {e, 10944});
            t.block(il, "ffn_up.weight", w, {e, 10944});
            t.block(il, "ffn_down.weight", GgmlType::Q8_0, {10944, e});
        } else {
            expertBlock(t, il, e, 64, 1408, 2816, w, GgmlType::Q8_0);
        }
    }
    return m;
}

ModelInfo interpretedShape(const std::string& file, std::optional<std::uint32_t> blocks) {
    auto spec = loadModelSpecFile(shapesDirectory() + "/" + file);
    if (spec.ok() && blocks) {
        spec = cutShape(*spec, ShapeCut{blocks, std::nullopt});
    }
    if (!spec.ok()) {
        ADD_FAILURE() << file << ": " << spec.error().message;
        return {};
    }
    const auto gguf = ggufFileForSpec(*spec);
    if (!gguf.ok()) {
        ADD_FAILURE() << file << ": " << gguf.error().message;
        return {};
    }
    auto model = interpretModel(*gguf);
    if (!model.ok()) {
        ADD_FAILURE() << file << ": " << model.error().code << ": " << model.error().message;
        return {};
    }
    return *model;
}

SizedShape sizedShape(const std::string& file, std::optional<std::uint32_t> blocks,
                      std::optional<std::uint32_t> slots, std::uint32_t contextTokens) {
    SizedShape sized{interpretedShape(file, blocks), {}};
    ServerSettings settings;
    settings.contextTokens = contextTokens;
    settings.parallelSlots = slots;
    const auto context = resolveContext(sized.model, settings);
    EXPECT_TRUE(context.ok()) << file;
    if (context.ok()) {
        sized.kv = sizeKvCaches(sized.model, settings, context.value());
    }
    return sized;
}

LayerPlacement leadingOnHost(const ModelInfo& model, std::size_t hostBlocks) {
    LayerPlacement layers;
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        layers.layerDevice.push_back(il < hostBlocks ? kHostDevice : 0);
    }
    return layers;
}

ServerSettings rpcSettings(std::vector<std::string> servers) {
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = 1;
    settings.gpuLayers = GpuLayers::all();
    settings.rpcServers = std::move(servers);
    return settings;
}

} // namespace llamafit::test

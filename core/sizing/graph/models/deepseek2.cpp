// DeepSeek-V2: llama.cpp src/models/deepseek2.cpp with multi-head latent attention (is_mla(): the
// split attn_k_b / attn_v_b). Pre-norm attention whose Q comes from attn_q (the Lite variant) or
// the low-rank attn_q_a, attn_q_a_norm, attn_q_b; K and V share one compressed row (kv_lora_rank
// values, RMS-normed, plus a RoPE part); Q's non-rotated part is absorbed into attn_k_b, so the
// attention runs as multi-query attention over a K-only cache and its output is decompressed with
// attn_v_b (LlmGraph::attentionKeyOnly). The leading dense layers keep build_ffn; the others run
// build_moe_ffn beside the shared experts' build_ffn. Both residual; the last layer keeps only the
// output rows.
#include "core/sizing/graph/models/modelbuilders.h"
#include "core/sizing/graph/moe.h"

namespace llamafit::graph {
namespace {

// Whether any layer has blk.N.<suffix>: one pass over the tensor table (the predicate runs with
// every estimate).
bool hasBlockTensor(const ModelInfo& model, std::string_view suffix) {
    for (const TensorSummary& tensor : model.tensors) {
        const std::string_view name = tensor.name;
        if (tensor.layer >= 0 && name.size() > suffix.size() && name.ends_with(suffix) &&
            name[name.size() - suffix.size() - 1] == '.') {
            return true;
        }
    }
    return false;
}

// load_arch_hparams: a GGUF without expert_gating_func keeps DeepSeek V2 / V2.5's softmax, but
// for GLM 4.7 Lite (47 or 48 layers, a vocabulary of 154880) the sigmoid.
ExpertGating expertGating(const ModelInfo& model) {
    switch (model.expertGatingFunc) {
    case 2:
        return ExpertGating::Sigmoid;
    case 3:
        return ExpertGating::SoftmaxWeight;
    case 0:
        if ((model.trunkLayerCount() == 47 || model.trunkLayerCount() == 48) &&
            model.vocabularySize == 154880) {
            return ExpertGating::Sigmoid;
        }
        return ExpertGating::Softmax;
    default:
        return ExpertGating::Softmax;
    }
}

} // namespace

bool latentAttentionExperts(const ModelInfo& model) {
    // deepseek2.cpp's MLA branch (the non-MLA one stores K and V of full heads) with its MoE layers;
    // not built here (moe.h): the expert groups (n_expert_groups > 1), the sqrt(softplus) gating,
    // and the fused ffn_gate_up_exps that create_tensor_gate_up_exps may load in place of the two.
    return model.mla && model.isMoe() && !model.hasRecurrentLayers() && !model.hasSlidingWindowLayers() &&
           model.expertGroupCount <= 1 && model.expertGatingFunc <= 3 &&
           !hasBlockTensor(model, "ffn_gate_up_exps.weight");
}

TensorId buildDeepseek2Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const auto T = static_cast<std::int64_t>(g.tokens());
    TensorId inpL = g.inputEmbeddings();
    const std::uint32_t layers = model.trunkLayerCount();
    // deepseek2.cpp: build_moe_ffn(..., LLM_FFN_SILU, hparams.expert_weights_norm,
    // hparams.expert_weights_scale, hparams.expert_gating_func).
    // DeepSeek-V3's routing (and GLM-4.7-Flash's) passes the layer's ffn_exp_probs_b
    // (blk.N.exp_probs_b.bias) as the experts' selection bias.
    const MoeOptions moe{.gating = expertGating(model),
                         .normalizeWeights = model.expertWeightsNorm,
                         .weightsScale = model.expertWeightsScale,
                         .selectionBias = hasBlockTensor(model, "exp_probs_b.bias")};
    // "(optional) temperature tuning - used by mistral-large": build_inp_attn_scale, one factor per
    // token ([1, 1, n_tokens]) that multiplies Q.
    TensorId attentionScale = kNoTensor;
    if (model.attentionTemperatureScale != 0.0f) {
        attentionScale = b.input(GgmlType::F32, {1, 1, T, 1}, "attn_scale");
    }
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        const int layer = static_cast<int>(il);
        const auto heads = static_cast<std::int64_t>(info.headCount);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);

        // Q: attn_q (the Lite variant, no q_lora_rank), else attn_q_a, its RMS norm, attn_q_b;
        // split into heads of n_embd_head_k_mla.
        TensorId q = kNoTensor;
        if (const TensorId wq = g.blockWeight(il, "attn_q.weight"); wq != kNoTensor) {
            q = b.mulMat(wq, cur);
        } else {
            q = b.mulMat(g.blockWeight(il, "attn_q_a.weight"), cur);
            q = g.norm(q, g.blockWeight(il, "attn_q_a_norm.weight"), kNoTensor, true, layer);
            q = b.mulMat(g.blockWeight(il, "attn_q_b.weight"), q);
        }
        const std::int64_t headDimK = b[q].ne[0] / heads;
        q = b.reshape(q, {headDimK, heads, T, 1});

        // llama-model.cpp's shapes give the widths: attn_kv_a_norm {kv_lora_rank}, attn_kv_a_mqa
        // {n_embd, kv_lora_rank + n_rot}; the rest of a Q head is the non-rotated part.
        const TensorId kvNorm = g.blockWeight(il, "attn_kv_a_norm.weight");
        const TensorId compressedPe = b.mulMat(g.blockWeight(il, "attn_kv_a_mqa.weight"), cur);
        const std::int64_t kvLoraRank = b[kvNorm].ne[0];
        const std::int64_t ropeDim = b[compressedPe].ne[0] - kvLoraRank;
        const std::int64_t nopeDim = headDimK - ropeDim;
        const std::uint64_t compressedRow = b[compressedPe].nb[1];
        const auto tokens = static_cast<std::uint64_t>(T);

        // kv_cmpr, {kv_lora_rank, n_tokens}, and k_pe, {n_rot, 1, n_tokens}, as views of one row.
        TensorId compressed = b.view(compressedPe, {kvLoraRank, T, 1, 1},
                                     {compressedRow, compressedRow * tokens, compressedRow * tokens}, 0);
        TensorId keyPe =
            b.view(compressedPe, {ropeDim, 1, T, 1}, {compressedRow, compressedRow, compressedRow * tokens},
                   ggmlRowBytes(b[compressedPe].type, static_cast<std::uint64_t>(kvLoraRank)));
        keyPe = b.rope(keyPe, g.inputPositions());
        compressed = g.norm(compressed, kvNorm, kNoTensor, true, layer);

        // q_nope and q_pe as views of Q's heads; q_pe rotated; q_nope absorbed into attn_k_b
        // ({n_embd_head_qk_nope, kv_lora_rank, n_head}) per head.
        const Tensor& query = b[q];
        const std::array<std::uint64_t, 3> queryStrides{query.nb[1], query.nb[2], query.nb[2] * tokens};
        const TensorId queryNope = b.view(q, {nopeDim, heads, T, 1}, queryStrides, 0);
        TensorId queryPe = b.view(q, {ropeDim, heads, T, 1}, queryStrides,
                                  ggmlRowBytes(query.type, static_cast<std::uint64_t>(nopeDim)));
        queryPe = b.rope(queryPe, g.inputPositions());
        const TensorId absorbed = b.permute(
            b.mulMat(g.blockWeight(il, "attn_k_b.weight"), b.permute(queryNope, {0, 2, 1, 3})), {0, 2, 1, 3});

        // "rope must go first for in-place context shifting": Q and K are the compressed part,
        // then the rotated one; V is the compressed part alone.
        TensorId queryCur = b.concat(absorbed, queryPe, 0);
        const TensorId valueCur = b.reshape(compressed, {kvLoraRank, 1, T, 1});
        const TensorId keyCur = b.concat(valueCur, keyPe, 0);
        if (attentionScale != kNoTensor) {
            queryCur = b.mul(queryCur, attentionScale);
        }
        cur = g.attentionKeyOnly(il, queryCur, keyCur, valueCur, g.blockWeight(il, "attn_v_b.weight"));

        // The stored deepseek2.cpp also asks "!cparams.embeddings_nextn || embeddings_nextn_masked",
        // which llama-server's main context always meets; the plans keep the rows here.
        const TensorId ffnInput = g.attentionResidual(il, cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);

        cur = buildDenseOrSharedExpertsFeedForward(g, cur, il, moe);
        inpL = b.add(cur, ffnInput);
    }
    // src/models/deepseek2.cpp: the logits by a plain ggml_mul_mat (no LoRA branch), as are its
    // attention's projections above; the shared experts' build_ffn and wo use build_lora_mm.
    return g.outputHead(inpL, false);
}

} // namespace llamafit::graph

#pragma once
// LlmGraph: the shared parts of llama.cpp's model graphs (src/llama-graph.cpp llm_graph_context and
// the KV cache's graph hooks in src/llama-kv-cache.cpp), over a GraphBuilder: the model's weights
// as leafs in their buffers, the graph inputs (token embeddings, positions, the KV cache's mask,
// indices and rotations, the output rows), build_norm, build_ffn, build_attn with its K/V stores
// and both attention paths, the output head, and build_lora_mm's LoRA branches (project()). The
// per-architecture builders (models/*.cpp) compose these as src/models/<arch>.cpp does. Shapes only; one
// instance per graph.

#include "core/model/modelinfo.h"
#include "core/sizing/graph/graphbuilder.h"
#include "core/sizing/graph/graphparams.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llamafit::graph {

// LlmGraph::attention's variants (the defaults: build_attn over a plain KV cache).
struct AttentionOptions {
    // build_attn(llm_graph_input_attn_kv_iswa *), the models with a sliding-window cache beside the
    // full one: Q, K and V are expanded in that order (the plain KV cache's: Q, V, K).
    bool iswa = false;
    // hparams.attn_soft_cap (gemma2): without flash attention the scores are soft-capped (scale,
    // tanh, scale) before the soft_max.
    bool softcapLogits = false;
    // build_attn's sinks (gpt-oss: blk.N.attn_sinks): ggml_soft_max_add_sinks on the soft_max, or
    // ggml_flash_attn_ext_add_sinks on the flash attention node, as their last source.
    TensorId sinks = kNoTensor;
    // build_attn's wo: false where the architecture passes none (qwen3next, qwen35moe gate the
    // attention's output before projecting it themselves), which returns the attention unprojected.
    bool projectOutput = true;
};

// The name prefix of a flash attention node, followed by its layer (llama-graph.h
// LLAMA_TENSOR_NAME_FATTN, "__fattn__", as cb() names it "__fattn__-<il>").
inline constexpr std::string_view kFlashAttentionName = "__fattn__-";

class LlmGraph {
  public:
    LlmGraph(const ModelInfo& model, const GraphParams& params);

    GraphBuilder& builder() { return m_builder; }
    const ModelInfo& model() const { return m_model; }
    const GraphParams& params() const { return m_params; }
    std::uint32_t tokens() const { return m_params.reserve.tokens; }

    // A weight of the model as a leaf in its buffer (created once); kNoTensor when the model has none.
    TensorId weight(std::string_view name);
    TensorId blockWeight(std::uint32_t layer, std::string_view suffix);
    // The output matrix: output.weight, or the tied copy of token_embd.
    TensorId outputWeight();
    // llama_model::get_rope_factors(il) where the model has RoPE factors (tensorroles.h
    // kRopeFactorsNames): layer `layer`'s copy,
    // one leaf per buffer type the layers use (llama-model-loader.cpp creates a TENSOR_DUPLICATED
    // weight once per buffer type); kNoTensor without one.
    TensorId ropeFactors(std::uint32_t layer);
    // A projection by a model weight, llama-graph.cpp build_lora_mm: mul_mat(w, x), then for each
    // LoRA adapter with a pair for w (params().loraWeights) mul_mat(lora_b, mul_mat(lora_a, x)),
    // scaled and added to it. Without adapters: mul_mat(w, x) alone.
    TensorId project(TensorId w, TensorId x);
    // build_lora_mm_id, the experts' projection: mul_mat_id(w, x, ids), and per adapted pair
    // mul_mat_id(lora_b, mul_mat_id(lora_a, x, ids), ids), scaled and added.
    TensorId projectExperts(TensorId w, TensorId x, TensorId ids);

    // build_inp_embd: token rows of token_embd; b11669 also builds the embeddings input and the
    // mixed token/embedding input beside it (only one of the three is computed, all are planned).
    TensorId inputEmbeddings();
    // build_inp_pos: n_tokens x positionsPerToken positions (hparams.n_pos_per_embd(): 4 under
    // M-RoPE, else 1), built once.
    TensorId inputPositions(std::int64_t positionsPerToken = 1);
    // The residual around a layer's attention as most src/models/<arch>.cpp write it: the last
    // layer of the trunk keeps only the output rows of both (get_rows by build_inp_out_ids), then
    // the two are added (ffn_inp).
    TensorId attentionResidual(std::uint32_t layer, TensorId attentionOutput, TensorId layerInput);
    // qwen3vl.cpp's deepstack: layer il < n_deepstack_layers adds the (il + 1)th n_embd slice of
    // the input embeddings (a view of inputEmbeddings()'s rows) to its output.
    TensorId addDeepstack(TensorId layerOutput, TensorId inputEmbeddings, std::uint32_t layer);
    // build_inp_out_ids: the rows that produce outputs (llama-server: one per slot, always).
    TensorId outputIds();

    // build_norm (LLM_NORM_RMS or LLM_NORM) with an optional weight and bias; `layer` (-1: none)
    // names it "norm-<layer>", which graph_get_cb may pin to the layer's backend.
    TensorId norm(TensorId x, TensorId weight, TensorId bias, bool rms, int layer);
    // A per-head Q or K RMS norm where the layer has the weight (blk.N.<weightName>), else x:
    // what the architectures whose files may or may not carry attn_q_norm/attn_k_norm build.
    TensorId normWherePresent(std::uint32_t layer, TensorId x, std::string_view weightName);
    // build_ffn with parallel gate (LLM_FFN_PAR) and SiLU (swiglu), optional biases; `glu` picks
    // the gate's activation (LLM_FFN_GELU: GluOp::Geglu).
    TensorId feedForward(TensorId x, std::uint32_t layer, GluOp glu = GluOp::Swiglu);
    // A projection split into heads (llama-graph.cpp build_qkv, per tensor): blk.N.<stem>.weight times
    // x, plus blk.N.<stem>.bias where the model has one, as [head_dim, heads, tokens].
    TensorId projectHeads(std::uint32_t layer, std::string_view stem, TensorId x, std::int64_t heads,
                          std::int64_t headDim);
    // llama-graph.cpp build_qkv: Q, K and V of one head width as [head_dim, heads, tokens]. With a
    // fused blk.N.attn_qkv (and its bias), one projection read through three views; else
    // projectHeads() of attn_q, attn_k and attn_v.
    struct QueryKeyValue {
        TensorId q = kNoTensor, k = kNoTensor, v = kNoTensor;
    };
    QueryKeyValue queryKeyValue(std::uint32_t layer, TensorId x, std::int64_t heads, std::int64_t headsKv,
                                std::int64_t headDim);
    // A layer's self-attention without position rotation (the NoPE attention layers of the hybrids:
    // granitehybrid, jamba, nemotron_h): Q, K and V projected into heads, then attention().
    TensorId attentionWithoutRope(std::uint32_t layer, TensorId x);
    // A layer's self-attention as most src/models/<arch>.cpp files write it: build_qkv (queryKeyValue()
    // over the layer's head width), RoPE on Q and K reading `positions` and `ropeFactors` (kNoTensor:
    // none), then attention(); with `positions` kNoTensor, no rotation.
    TensorId qkvAttention(std::uint32_t layer, TensorId x, TensorId positions,
                          TensorId ropeFactors = kNoTensor);
    // x + bias where the model has `blk.N.<suffix>` (a bias), else x.
    TensorId addBias(TensorId x, std::uint32_t layer, std::string_view suffix);

    // build_attn with the KV cache: stores K and V of this ubatch, attends over the whole cache
    // (flash attention or K*Q, soft_max, V*KQ), projects with wo (and its bias). `q`, `k`, `v` are
    // [head_dim, heads, tokens]; `options` as AttentionOptions above.
    TensorId attention(std::uint32_t layer, TensorId q, TensorId k, TensorId v,
                       const AttentionOptions& options = {});
    // build_attn over a K-only cache (llm_graph_input_attn_k: multi-head latent attention with the
    // absorption optimisation, deepseek2): stores K of this ubatch, reads V as the first
    // v.ne[0] values of each cached K row, attends as multi-query attention, and decompresses the
    // result with `valueDecompression` (v_mla, blk.N.attn_v_b) before wo. `q` and `k` are
    // [head_dim, heads, tokens]; `v` only gives V's width. Defined in mlaattention.cpp.
    TensorId attentionKeyOnly(std::uint32_t layer, TensorId q, TensorId k, TensorId v,
                              TensorId valueDecompression);

    // The output norm and the logits (both graph outputs), the logits by project() unless
    // `adaptedOutput` is false (deepseek2.cpp multiplies by model.output with a plain ggml_mul_mat).
    TensorId outputHead(TensorId x, bool adaptedOutput = true);

  private:
    struct KvInputs {
        TensorId mask = kNoTensor;
        TensorId kIndices = kNoTensor;
        TensorId vIndices = kNoTensor;
        TensorId kRotation = kNoTensor; // a quantized K: Q and K are rotated
        TensorId vRotation = kNoTensor; // a quantized V: V and the attention's output are rotated
        std::uint32_t cells = 0;
    };
    const KvInputs& kvInputs(bool swa);
    // The KQ mask over `cells` per stream, as the attention nodes read it (llama.cpp's *_cnv).
    TensorId kqMask(std::uint32_t cells);
    // build_attn_inp_k: the store indices and the mask of a K-only cache (no V indices, no rotations).
    const KvInputs& keyOnlyInputs();
    TensorId kvCache(std::uint32_t layer, bool keys);
    TensorId rotate(TensorId x, TensorId rotation);
    bool layerIsSwa(std::uint32_t layer) const;
    // The adapters' (lora_a, lora_b) leafs for weight leaf `w`, in params().loraWeights order.
    std::vector<std::pair<TensorId, TensorId>> loraPairs(TensorId w);
    TensorId loraLeaf(const LoraTensor& tensor, const Buffer& buffer);

    const ModelInfo& m_model;
    const GraphParams& m_params;
    GraphBuilder m_builder;
    // model.tensors by name, and the leaf made for each (kNoTensor until asked for): weights are
    // looked up by name once per layer and kind, so a map rather than a scan of every tensor.
    std::unordered_map<std::string_view, std::size_t> m_tensorIndex;
    std::vector<TensorId> m_weightLeafs;
    // Each weight leaf's model.tensors index (LoRA pairs name their weight by it), and each
    // params().loraWeights entry's leafs once made.
    std::unordered_map<TensorId, std::size_t> m_weightOfLeaf;
    std::vector<std::pair<TensorId, TensorId>> m_loraLeafs;
    std::map<bool, KvInputs> m_kvInputs;
    std::optional<KvInputs> m_keyOnlyInputs;
    std::map<std::pair<std::uint32_t, bool>, TensorId> m_caches;
    TensorId m_positions = kNoTensor;
    TensorId m_outputIds = kNoTensor;
    TensorId m_tiedOutput = kNoTensor;
    std::map<std::string, TensorId> m_ropeFactorCopies; // by buffer type
};

} // namespace llamafit::graph

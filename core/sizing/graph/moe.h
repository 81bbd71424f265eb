#pragma once
// The mixture-of-experts feed-forward of llama.cpp's graphs (src/llama-graph.cpp
// llm_graph_context::build_moe_ffn, b11669): the router's logits and gating, the top-k experts per
// token (ggml_argsort_top_k: an ARGSORT and a view of its first k columns), their weights
// (normalised and scaled where the architecture asks), the selected experts' up/gate/down as
// MUL_MAT_ID (each with its expert's bias where the architecture passes one: ADD_ID), and the
// weighted sum over the experts as views and adds. Used by the MoE architectures' builders
// (models/qwen3moe.cpp, models/gptoss.cpp, models/glm4moe.cpp); shapes only, over an LlmGraph.

#include "core/sizing/graph/llmgraph.h"

#include <optional>

namespace llamafit::graph {

// llama_expert_gating_func_type as far as the builders here use it. SoftmaxWeight: the logits
// select the experts, the soft_max is taken over the selected ones' weights (gpt-oss).
enum class ExpertGating : std::uint8_t { Softmax, Sigmoid, SoftmaxWeight };

// llm_ffn_op_type of the experts' activation: LLM_FFN_SILU (swiglu, or silu without a gate),
// LLM_FFN_SWIGLU_OAI_MOE (ggml_swiglu_oai, gpt-oss), or LLM_FFN_RELU_SQR (relu then sqr, experts
// without a gate only: nemotron_h_moe).
enum class ExpertActivation : std::uint8_t { Silu, SwigluOai, ReluSqr };

// The gating of an architecture that casts hparams.expert_gating_func straight to the gating type
// (minimax-m2.cpp, dots1.cpp): a file without the key (0, none) makes build_moe_ffn abort, and
// sqrt(softplus) (4) is not built here; nullopt for both.
std::optional<ExpertGating> gatingOfFile(const ModelInfo& model);

// The per-architecture arguments src/models/<arch>.cpp passes build_moe_ffn.
struct MoeOptions {
    ExpertGating gating = ExpertGating::Softmax;
    ExpertActivation activation = ExpertActivation::Silu;
    bool normalizeWeights = false; // norm_w: the selected weights divided by their sum
    float weightsScale = 0.0f;     // w_scale: 0 and 1 add no SCALE node
    // gate_inp_b, up_exps_b, gate_exps_b, down_exps_b: the layer's ffn_gate_inp.bias and
    // ffn_{up,gate,down}_exps.bias, added where the model has them (gpt-oss passes them).
    bool biases = false;
    // exp_probs_b: the layer's blk.N.exp_probs_b.bias (where it has one) added to the
    // probabilities to choose the experts (DeepSeek-V3's routing, GLM-4.5, ERNIE 4.5), while the
    // weights come from the unbiased ones.
    bool selectionBias = false;
};

// build_moe_ffn over layer `layer`'s ffn_gate_inp, ffn_{up,gate,down}_exps (and their biases);
// `x` is [n_embd, tokens] (the experts' input width, a latent one where the architecture projects
// down first). `routerLogits`: build_moe_ffn's probs_in, the router's logits the architecture made
// itself (nemotron-h.cpp, from the input before its latent projection); kNoTensor: ffn_gate_inp
// times x, here.
// Returns ffn_moe_out, [n_embd, tokens].
TensorId buildMoeFeedForward(LlmGraph& graph, TensorId x, std::uint32_t layer, const MoeOptions& options,
                             TensorId routerLogits = kNoTensor);

// The feed-forward of the models with leading dense layers and shared experts (deepseek2.cpp,
// glm4-moe.cpp, ernie4-5-moe.cpp): build_ffn (SwiGLU) in a layer without a router ("il <
// n_layer_dense_lead": the loader gives exactly those layers ffn_gate/up/down), else build_moe_ffn
// plus, where the layer has them, the shared experts' build_ffn (LLM_FFN_SILU, LLM_FFN_PAR) over
// ffn_*_shexp, added.
TensorId buildDenseOrSharedExpertsFeedForward(LlmGraph& graph, TensorId x, std::uint32_t layer,
                                              const MoeOptions& options);

// The shared experts' build_ffn (LLM_FFN_SILU, LLM_FFN_PAR) over the layer's ffn_{up,gate,down}_shexp,
// which the architectures with shared experts add to build_moe_ffn's output.
TensorId buildSharedExpertsFeedForward(LlmGraph& graph, TensorId x, std::uint32_t layer);

} // namespace llamafit::graph

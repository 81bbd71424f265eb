// build_moe_ffn; see moe.h. Each step restates llama.cpp b11669 src/llama-graph.cpp
// llm_graph_context::build_moe_ffn in its order, which is also the order ggml expands the nodes in.
#include "core/sizing/graph/moe.h"

#include <string>
#include <string_view>

namespace llamafit::graph {

TensorId buildMoeFeedForward(LlmGraph& graph, TensorId x, std::uint32_t layer, const MoeOptions& options,
                             TensorId routerLogits) {
    GraphBuilder& b = graph.builder();
    const ModelInfo& model = graph.model();
    const std::int64_t embd = b[x].ne[0];
    const std::int64_t tokens = b[x].ne[1];
    const auto experts = static_cast<std::int64_t>(model.expertCount);
    const auto used = static_cast<std::int64_t>(model.expertUsedCount);

    // An expert bias where the architecture passes them and the model has one (build_moe_ffn's
    // "if (gate_inp_b)", "if (up_exps_b)", ...).
    const auto bias = [&](std::string_view suffix) {
        return options.biases ? graph.blockWeight(layer, suffix) : kNoTensor;
    };

    // The router: logits = gate_inp * x ([n_expert, n_tokens]) plus gate_inp_b, then the gating
    // function; SOFTMAX_WEIGHT keeps the logits as the probabilities.
    TensorId logits = routerLogits != kNoTensor
                          ? routerLogits
                          : graph.project(graph.blockWeight(layer, "ffn_gate_inp.weight"), x);
    if (const TensorId routerBias = bias("ffn_gate_inp.bias"); routerBias != kNoTensor) {
        logits = b.add(logits, routerBias);
    }
    TensorId probs = logits;
    if (options.gating == ExpertGating::Softmax) {
        probs = b.softMax(logits, kNoTensor);
    } else if (options.gating == ExpertGating::Sigmoid) {
        probs = b.unary(logits, UnaryOp::Sigmoid);
    }

    // The selection bias, where the architecture passes one ("leave probs unbiased as it's later
    // used to get expert weights").
    TensorId selectionProbs = probs;
    // build_moe_ffn: "if (exp_probs_b != nullptr)"; where the bias is optional (ernie4-5.cpp's
    // TENSOR_NOT_REQUIRED) a layer without it selects by the probabilities themselves.
    if (const TensorId bias = graph.blockWeight(layer, "exp_probs_b.bias");
        options.selectionBias && bias != kNoTensor) {
        selectionProbs = b.add(probs, bias);
    }

    // ggml_argsort_top_k: the experts sorted by probability, a view of the first n_expert_used
    // (the row stride stays the full argsort's).
    const TensorId sorted = b.argsort(selectionProbs);
    const Tensor& sortedTensor = b[sorted];
    const TensorId selected =
        b.view(sorted, {used, sortedTensor.ne[1], sortedTensor.ne[2], sortedTensor.ne[3]},
               {sortedTensor.nb[1], sortedTensor.nb[2], sortedTensor.nb[3]}, 0);

    // The selected experts' weights: rows of probs as [1, n_expert, n_tokens].
    TensorId weights = b.getRows(b.reshape(probs, {1, experts, tokens, 1}), selected);
    if (options.gating == ExpertGating::SoftmaxWeight) {
        // The soft_max over the selected experts' weights, as [n_expert_used, n_tokens].
        weights =
            b.reshape(b.softMax(b.reshape(weights, {used, tokens, 1, 1}), kNoTensor), {1, used, tokens, 1});
    }
    if (options.normalizeWeights) {
        // norm_w: divided by their sum, clamped away from 0 (the smallest normal f16).
        weights = b.reshape(weights, {used, tokens, 1, 1});
        const TensorId sum = b.clamp(b.sumRows(weights));
        weights = b.reshape(b.div(weights, sum), {1, used, tokens, 1});
    }
    if (options.weightsScale != 0.0f && options.weightsScale != 1.0f) {
        weights = b.scale(weights);
    }
    // "call early so that topk-moe can be used": the weights are expanded before the experts.
    b.expand(weights);

    // The experts: up and gate of the selected ones (MUL_MAT_ID over [n_embd, 1, n_tokens]),
    // each followed by its bias (ADD_ID with the selected ids), the activation, and down.
    const auto expertProduct = [&](TensorId matrices, TensorId input, std::string_view biasSuffix) {
        const TensorId product = graph.projectExperts(matrices, input, selected);
        const TensorId expertBias = bias(biasSuffix);
        return expertBias == kNoTensor ? product : b.addId(product, expertBias, selected);
    };
    const TensorId input = b.reshape(x, {embd, 1, tokens, 1});
    const TensorId up =
        expertProduct(graph.blockWeight(layer, "ffn_up_exps.weight"), input, "ffn_up_exps.bias");
    const TensorId gateWeight = graph.blockWeight(layer, "ffn_gate_exps.weight");
    TensorId cur = gateWeight == kNoTensor ? up : expertProduct(gateWeight, input, "ffn_gate_exps.bias");
    if (options.activation == ExpertActivation::SwigluOai) {
        // ggml_swiglu_oai(gate, up, alpha 1.702, limit 7): a GLU of the gate's shape.
        cur = b.glu(cur, up, GluOp::SwigluOai);
    } else if (options.activation == ExpertActivation::ReluSqr) {
        // LLM_FFN_RELU_SQR: relu, then sqr (llama.cpp aborts on a gated squared relu).
        cur = b.sqr(b.unary(cur, UnaryOp::Relu));
    } else {
        cur = gateWeight == kNoTensor ? b.unary(cur, UnaryOp::Silu) : b.glu(cur, up, GluOp::Swiglu);
    }
    TensorId out = expertProduct(graph.blockWeight(layer, "ffn_down_exps.weight"), cur, "ffn_down_exps.bias");
    out = b.mul(out, weights);
    b.expand(out);

    // The weighted sum: one [n_embd, n_tokens] view per used expert, all expanded before the
    // adds. The loop runs over hparams.n_expert_used.
    const Tensor& outTensor = b[out];
    const std::uint64_t expertStride = outTensor.nb[1];
    const std::uint64_t tokenStride = outTensor.nb[2];
    std::vector<TensorId> views;
    for (std::int64_t i = 0; i < used; ++i) {
        const TensorId view = b.view(out, {embd, tokens, 1, 1},
                                     {tokenStride, tokenStride * static_cast<std::uint64_t>(tokens),
                                      tokenStride * static_cast<std::uint64_t>(tokens)},
                                     static_cast<std::uint64_t>(i) * expertStride);
        b.expand(view);
        views.push_back(view);
    }
    TensorId sum = views.front();
    for (std::size_t i = 1; i < views.size(); ++i) {
        sum = b.add(sum, views[i]);
        b.expand(sum);
    }
    if (used == 1) {
        // "avoid returning a non-contiguous tensor"
        sum = b.cont(sum, b[sum].ne);
    }
    return sum;
}

std::optional<ExpertGating> gatingOfFile(const ModelInfo& model) {
    switch (model.expertGatingFunc) {
    case 1:
        return ExpertGating::Softmax;
    case 2:
        return ExpertGating::Sigmoid;
    case 3:
        return ExpertGating::SoftmaxWeight;
    default:
        return std::nullopt;
    }
}

TensorId buildDenseOrSharedExpertsFeedForward(LlmGraph& graph, TensorId x, std::uint32_t layer,
                                              const MoeOptions& options) {
    if (graph.blockWeight(layer, "ffn_gate_inp.weight") == kNoTensor) {
        return graph.feedForward(x, layer);
    }
    const TensorId routed = buildMoeFeedForward(graph, x, layer, options);
    // ernie4-5-moe.cpp: the shared experts only where the file has them (n_ff_shexp > 0).
    if (graph.blockWeight(layer, "ffn_up_shexp.weight") == kNoTensor) {
        return routed;
    }
    return graph.builder().add(routed, buildSharedExpertsFeedForward(graph, x, layer));
}

TensorId buildSharedExpertsFeedForward(LlmGraph& graph, TensorId x, std::uint32_t layer) {
    GraphBuilder& b = graph.builder();
    const TensorId up = graph.project(graph.blockWeight(layer, "ffn_up_shexp.weight"), x);
    const TensorId gate = graph.project(graph.blockWeight(layer, "ffn_gate_shexp.weight"), x);
    return graph.project(graph.blockWeight(layer, "ffn_down_shexp.weight"), b.glu(gate, up, GluOp::Swiglu));
}

} // namespace llamafit::graph

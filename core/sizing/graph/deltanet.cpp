// The gated delta-net layer; see deltanet.h. Each step restates the llama.cpp function named beside
// it (src/models/delta-net-base.cpp, src/models/qwen3next.cpp, src/models/qwen35moe.cpp); where
// b11669 differs from the source in the index, the plans of b11669 (tests/data/plans/*qwen3next*,
// *qwen35moe*) decided, as noted.
#include "core/sizing/graph/deltanet.h"

#include <algorithm>

namespace llamafit::graph {
namespace {

std::uint64_t f32Bytes(std::int64_t values) {
    return static_cast<std::uint64_t>(values) * kF32Bytes;
}

// The ubatch as build_layer_attn_linear sees it: n_seqs sequences of n_seq_tokens tokens.
struct Ubatch {
    std::int64_t seqs = 1;
    std::int64_t seqTokens = 1;
};

// The layer's widths (build_layer_attn_linear): key heads = ssm.group_count of ssm.state_size
// values, value heads = ssm.time_step_rank of inner_size / time_step_rank values.
struct Widths {
    std::int64_t keyHeadDim = 0;
    std::int64_t keyHeads = 0;
    std::int64_t valueHeadDim = 0;
    std::int64_t valueHeads = 0;
    std::int64_t embd = 0;
};

// ggml_l2_norm(x, eps) as b11669 builds it (the plans): an RMS norm with eps / n, scaled by
// 1 / sqrt(n) (x / ||x||), two nodes where the index's source has one L2_NORM.
TensorId l2Norm(GraphBuilder& b, TensorId x) {
    return b.scale(b.rmsNorm(x));
}

// qwen3next.cpp build_qkvz: the mixed Q, K, V ([conv channels, n_seq_tokens, n_seqs]) and the
// output gate z. A model with attn_qkv / attn_gate projects them apart (qwen35moe.cpp, qwen3next's
// "optimized path"); the legacy ssm_in projects all four at once, interleaved per key head.
std::pair<TensorId, TensorId> projectQkvz(LlmGraph& g, TensorId x, std::uint32_t il, const Widths& w,
                                          Ubatch u) {
    GraphBuilder& b = g.builder();
    if (const TensorId wqkv = g.blockWeight(il, "attn_qkv.weight"); wqkv != kNoTensor) {
        TensorId qkv = g.project(wqkv, x);
        qkv = b.reshape(qkv, {b[qkv].ne[0], u.seqTokens, u.seqs, 1});
        return {qkv, g.project(g.blockWeight(il, "attn_gate.weight"), x)};
    }
    const TensorId mixed = g.project(g.blockWeight(il, "ssm_in.weight"), x);
    const std::int64_t valuesPerKeyHead = w.valueHeadDim * w.valueHeads / w.keyHeads;
    const TensorId heads =
        b.reshape(mixed, {2 * w.keyHeadDim + 2 * valuesPerKeyHead, w.keyHeads, u.seqTokens, u.seqs});
    const Tensor& h = b[heads];
    const auto part = [&](std::int64_t width, std::int64_t offsetValues) {
        return b.view(heads, {width, w.keyHeads, u.seqTokens, u.seqs}, {h.nb[1], h.nb[2], h.nb[3]},
                      f32Bytes(offsetValues));
    };
    const TensorId query = part(w.keyHeadDim, 0);
    const TensorId key = part(w.keyHeadDim, w.keyHeadDim);
    const TensorId value = part(valuesPerKeyHead, 2 * w.keyHeadDim);
    const TensorId zView = part(valuesPerKeyHead, 2 * w.keyHeadDim + valuesPerKeyHead);
    const TensorId z = b.cont(zView, b[zView].ne);
    // ggml_cont_3d of each, then concatenated along the features: [q | k | v] per token.
    const TensorId queryFlat = b.cont(query, {w.keyHeadDim * w.keyHeads, u.seqTokens, u.seqs, 1});
    const TensorId keyFlat = b.cont(key, {w.keyHeadDim * w.keyHeads, u.seqTokens, u.seqs, 1});
    const TensorId valueFlat = b.cont(value, {w.valueHeadDim * w.valueHeads, u.seqTokens, u.seqs, 1});
    return {b.concat(b.concat(queryFlat, keyFlat, 0), valueFlat, 0), z};
}

// delta-net-base.cpp build_conv_state: the conv state's rows (build_rs) before the ubatch's mixed
// QKV, transposed to one column per token; the last d_conv - 1 columns go back into the cache, K
// times under rollback snapshots (n_rs_seq > 0, each slot one token further back).
TensorId buildConvInput(LlmGraph& g, const RsInput& input, TensorId qkvMixed, std::uint32_t il,
                        std::int64_t kernel, std::int64_t channels, Ubatch u) {
    GraphBuilder& b = g.builder();
    const TensorId cache = rsCache(g, il, true);
    TensorId states = buildRs(g, input, cache);
    states = b.reshape(states, {kernel - 1, channels, u.seqs, 1});
    const TensorId convInput = b.concat(states, b.transpose(qkvMixed), 0);

    const auto memSize = static_cast<std::uint64_t>(g.params().rsCells);
    const std::uint64_t rowBytes = f32Bytes((kernel - 1) * channels);
    const std::int64_t snapshots = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(g.params().rsRows / std::max<std::uint32_t>(g.params().rsCells, 1)));
    const Tensor& conv = b[convInput];
    const std::int64_t lastStart = conv.ne[0] - (kernel - 1);
    for (std::int64_t t = 1; t <= snapshots; ++t) {
        // n_rs_seq == 0: one copy of the last columns into slot 0.
        const std::int64_t start = std::max<std::int64_t>(0, lastStart - snapshots + t);
        const auto slot = static_cast<std::uint64_t>(snapshots - t);
        const TensorId last = b.view3d(convInput, {kernel - 1, channels, u.seqs, 1}, b[convInput].nb[1],
                                       b[convInput].nb[2], f32Bytes(start));
        const TensorId update = b.view2d(cache, (kernel - 1) * channels, u.seqs, b[cache].nb[1],
                                         (slot * memSize + kRsHead) * rowBytes);
        if (snapshots == 1) {
            // cb's names (il appended), which ggml's scheduler aborts with where the cache's
            // device cannot run the copy: a conv input over lavapipe's storage range.
            b.setName(last, "conv_state_last-" + std::to_string(il));
            b.setName(update, "conv_state_update-" + std::to_string(il));
        }
        b.expand(b.cpy(last, update));
    }
    return convInput;
}

// delta-net-base.cpp build_recurrent_attn with the fused op (build_delta_net_fused; its
// resolve_fused_ops probe keeps it wherever GATED_DELTA_NET runs on the layer's device): one
// GATED_DELTA_NET node; the output is its first n_tokens * n_seqs rows, the new state the rows
// after, copied into the ubatch's cells (K snapshot slots under rollback, n_rs_seq > 0).
TensorId recurrentAttention(LlmGraph& g, TensorId ssmCache, TensorId q, TensorId k, TensorId v, TensorId gate,
                            TensorId beta, TensorId state) {
    GraphBuilder& b = g.builder();
    const GraphBuilder::Shape s = b[state].ne; // [S_v, S_v, H_v, n_seqs]
    const std::int64_t headSize = s[0];
    const std::int64_t heads = s[2];
    const std::int64_t seqs = s[3];
    const std::int64_t seqTokens = b[q].ne[2];
    const auto memSize = static_cast<std::uint64_t>(g.params().rsCells);
    const std::int64_t snapshots = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(g.params().rsRows / std::max<std::uint32_t>(g.params().rsCells, 1)));

    const TensorId result = b.gatedDeltaNet(q, k, v, gate, beta, state, snapshots);
    const TensorId output =
        b.view(result, {headSize, heads, seqTokens, seqs},
               {f32Bytes(headSize), f32Bytes(headSize * heads), f32Bytes(headSize * heads * seqTokens)}, 0);
    const std::uint64_t outputBytes = f32Bytes(headSize * heads * seqTokens * seqs);
    const Tensor& cache = b[ssmCache];
    if (snapshots == 1) {
        const TensorId newState =
            b.view(result, {headSize, headSize, heads, seqs},
                   {f32Bytes(headSize), f32Bytes(headSize * headSize), f32Bytes(headSize * headSize * heads)},
                   outputBytes);
        const TensorId target = b.view2d(ssmCache, cache.ne[0], seqs, cache.nb[1], kRsHead * cache.nb[1]);
        b.expand(b.cpy(newState, target));
        return output;
    }
    // The kept snapshots: min(n_seq_tokens, K) of them, slot i into rollback group i.
    const std::int64_t stateValues = headSize * headSize * heads;
    const std::int64_t written = std::min(seqTokens, snapshots);
    const TensorId source = b.view3d(result, {stateValues, seqs, written, 1}, f32Bytes(stateValues),
                                     f32Bytes(stateValues * seqs), outputBytes);
    const TensorId target = b.view3d(ssmCache, {stateValues, seqs, written, 1}, cache.nb[1],
                                     memSize * cache.nb[1], kRsHead * cache.nb[1]);
    b.expand(b.cpy(source, target));
    return output;
}

} // namespace

std::int64_t deltaNetHeadSize(const ModelInfo& model) {
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        const TensorSummary* bias = model.blockTensor(il, "ssm_dt.bias");
        if (model.layers[il].recurrent && bias != nullptr && bias->rowValues > 0) {
            return static_cast<std::int64_t>(model.ssmInnerSize / bias->rowValues);
        }
    }
    return 0;
}

TensorId buildDeltaNetLayer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t il,
                            const DeltaNetOptions& options) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const auto seqs = static_cast<std::int64_t>(std::max<std::uint32_t>(g.params().reserve.sequences, 1));
    const Ubatch u{seqs, static_cast<std::int64_t>(g.tokens()) / seqs};
    Widths w;
    w.keyHeadDim = static_cast<std::int64_t>(model.ssmStateSize);
    w.keyHeads = static_cast<std::int64_t>(model.ssmGroupCount);
    const TensorId dtBias = g.blockWeight(il, "ssm_dt.bias");
    w.valueHeads = b[dtBias].ne[0];
    w.valueHeadDim = static_cast<std::int64_t>(model.ssmInnerSize) / w.valueHeads;
    w.embd = b[cur].ne[0];

    const auto [qkvMixed, z] = projectQkvz(g, cur, il, w, u);

    // The decay gate and beta, per value head and token ([1, H_v, n_seq_tokens, n_seqs]).
    TensorId beta = kNoTensor;
    TensorId alpha = kNoTensor;
    if (options.fusedBetaAlpha) {
        // qwen3next.cpp: ssm_ba as [2 * H_v / H_k, H_k, ...], b the first half of each key head's
        // row, a the second. b11669 (the plans) takes the sigmoid of the strided b itself, without
        // the index's ggml_cont before it.
        const TensorId mixed = g.project(g.blockWeight(il, "ssm_ba.weight"), cur);
        const std::int64_t perKeyHead = w.valueHeads / w.keyHeads;
        const TensorId heads = b.reshape(mixed, {2 * perKeyHead, w.keyHeads, u.seqTokens, u.seqs});
        const Tensor& h = b[heads];
        const TensorId bView =
            b.view(heads, {perKeyHead, w.keyHeads, u.seqTokens, u.seqs}, {h.nb[1], h.nb[2], h.nb[3]}, 0);
        const TensorId aView = b.view(heads, {perKeyHead, w.keyHeads, u.seqTokens, u.seqs},
                                      {h.nb[1], h.nb[2], h.nb[3]}, f32Bytes(perKeyHead));
        beta = b.reshape(b.unary(bView, UnaryOp::Sigmoid), {1, w.valueHeads, u.seqTokens, u.seqs});
        alpha = b.cont(aView, {w.valueHeads, u.seqTokens, u.seqs, 1});
    } else {
        // qwen35moe.cpp: beta = sigmoid(ssm_beta * x), alpha = ssm_alpha * x.
        beta = g.project(g.blockWeight(il, "ssm_beta.weight"), cur);
        beta = b.unary(b.reshape(beta, {1, w.valueHeads, u.seqTokens, u.seqs}), UnaryOp::Sigmoid);
        alpha = g.project(g.blockWeight(il, "ssm_alpha.weight"), cur);
        alpha = b.reshape(alpha, {w.valueHeads, u.seqTokens, u.seqs, 1});
    }
    // gate = softplus(alpha + dt_bias) * A ("-A_log.exp() * softplus").
    TensorId gate = b.unary(b.add(alpha, dtBias), UnaryOp::Softplus);
    gate = b.mul(gate, g.blockWeight(il, "ssm_a"));
    gate = b.reshape(gate, {1, w.valueHeads, u.seqTokens, u.seqs});

    // The convolution over the conv state and the ubatch, then the SSM state's rows.
    const TensorId kernel = g.blockWeight(il, "ssm_conv1d.weight");
    const std::int64_t kernelSize = b[kernel].ne[0];
    const auto channels =
        static_cast<std::int64_t>(model.ssmInnerSize + 2 * model.ssmGroupCount * model.ssmStateSize);
    const TensorId convInput = buildConvInput(g, input, qkvMixed, il, kernelSize, channels, u);
    const TensorId ssmCache = rsCache(g, il, false);
    TensorId state = buildRs(g, input, ssmCache);
    state = b.reshape(state, {w.valueHeadDim, w.valueHeadDim, w.valueHeads, u.seqs});
    const TensorId convolved = b.unary(b.ssmConv(convInput, kernel), UnaryOp::Silu);

    // Q, K and V as views of the convolved [q | k | v] rows.
    const std::uint64_t rowBytes = f32Bytes(2 * w.keyHeadDim * w.keyHeads + w.valueHeadDim * w.valueHeads);
    const auto headView = [&](std::int64_t headDim, std::int64_t heads, std::int64_t offsetValues) {
        return b.view(convolved, {headDim, heads, u.seqTokens, u.seqs},
                      {f32Bytes(headDim), rowBytes, rowBytes * static_cast<std::uint64_t>(u.seqTokens)},
                      f32Bytes(offsetValues));
    };
    TensorId q = l2Norm(b, headView(w.keyHeadDim, w.keyHeads, 0));
    TensorId k = l2Norm(b, headView(w.keyHeadDim, w.keyHeads, w.keyHeadDim * w.keyHeads));
    const TensorId v = headView(w.valueHeadDim, w.valueHeads, 2 * w.keyHeadDim * w.keyHeads);
    if (options.repeatKeyHeads && w.keyHeads != w.valueHeads) {
        // "repeat interleave": each key head once per value head it serves.
        const std::int64_t factor = w.valueHeads / w.keyHeads;
        const auto interleave = [&](TensorId x) {
            x = b.reshape(x, {w.keyHeadDim, 1, w.keyHeads, u.seqTokens * u.seqs});
            x = b.repeat(x, {w.keyHeadDim, factor, w.keyHeads, u.seqTokens * u.seqs});
            return b.reshape(x, {w.keyHeadDim, w.keyHeads * factor, u.seqTokens, u.seqs});
        };
        q = interleave(q);
        k = interleave(k);
    }
    const TensorId output = recurrentAttention(g, ssmCache, q, k, v, gate, beta, state);

    // build_norm_gated: RMS norm (ssm_norm) times silu(z), then ssm_out.
    const TensorId z4 = b.reshape(z, {w.valueHeadDim, w.valueHeads, u.seqTokens, u.seqs});
    const TensorId normed =
        g.norm(output, g.blockWeight(il, "ssm_norm.weight"), kNoTensor, true, static_cast<int>(il));
    TensorId out = b.mul(normed, b.unary(z4, UnaryOp::Silu));
    out = b.reshape(out, {w.valueHeadDim * w.valueHeads, u.seqTokens, u.seqs, 1});
    out = g.project(g.blockWeight(il, "ssm_out.weight"), out);
    return b.reshape(out, {w.embd, u.seqTokens * u.seqs, 1, 1});
}

} // namespace llamafit::graph

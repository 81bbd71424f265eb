// The RWKV graph parts; see rwkv.h. Each function restates the llama.cpp b11669 function named
// beside it (src/llama-graph.cpp, src/models/rwkv6-base.cpp, src/models/rwkv7-base.cpp); the plans
// of b11669 (tests/data/plans/*rwkv*) show the same nodes in the same order.
#include "core/sizing/graph/rwkv.h"

#include <algorithm>

namespace llamafit::graph {
namespace {

// sizeof(float): the element size of the f32 activations and states the views step over.
constexpr std::uint64_t kRwkvFloatBytes = 4;

// The cell the ubatch's states start at (mctx->get_head()): 0 at a reserve, the cache being empty.
constexpr std::uint64_t kRwkvStateHead = 0;

std::uint64_t rwkvFloats(std::int64_t values) {
    return static_cast<std::uint64_t>(values) * kRwkvFloatBytes;
}

// The ubatch as the RWKV graphs see it: n_seqs sequences of n_seq_tokens tokens, n_tokens in all,
// and n_embd.
struct RwkvUbatch {
    std::int64_t tokens = 1;
    std::int64_t seqs = 1;
    std::int64_t seqTokens = 1;
    std::int64_t embd = 0;
};

RwkvUbatch rwkvUbatch(const LlmGraph& g) {
    RwkvUbatch u;
    u.tokens = static_cast<std::int64_t>(g.tokens());
    u.seqs = static_cast<std::int64_t>(std::max<std::uint32_t>(g.params().reserve.sequences, 1));
    u.seqTokens = u.tokens / u.seqs;
    u.embd = static_cast<std::int64_t>(g.model().embeddingLength);
    return u;
}

// hparams.wkv_head_size: n_embd_s = n_embd * wkv_head_size (llama-hparams.cpp n_embd_s).
std::int64_t rwkvHeadSize(const LlmGraph& g, std::uint32_t layer) {
    const auto embd = static_cast<std::int64_t>(g.model().embeddingLength);
    return static_cast<std::int64_t>(g.model().layers.at(layer).recurrentStateWidth) / embd;
}

// A weight of the layer as llama-model.cpp's create_tensor shapes it where that is not the
// summary's [ne0, rows]: the leaf in its buffer, `ne` made of the summary's row length and rows
// by `shape`. The builders ask for each such weight once per graph; kNoTensor when the model has
// none (a required one then fails the graph as a missing weight).
template <typename ShapeFn>
TensorId rwkvShapedWeight(LlmGraph& g, std::uint32_t layer, std::string_view suffix, ShapeFn shape) {
    const TensorSummary* tensor = g.model().blockTensor(layer, suffix);
    if (tensor == nullptr) {
        return kNoTensor;
    }
    GraphBuilder& b = g.builder();
    const auto index = static_cast<std::size_t>(tensor - g.model().tensors.data());
    return b.leaf(
        tensor->type,
        shape(static_cast<std::int64_t>(tensor->rowValues), static_cast<std::int64_t>(tensor->rows())),
        tensor->name, b.addBuffer(g.params().weightBuffers.at(index)));
}

// The fused lerps, {n_embd, 1, 1, 5} (rwkv6) or {n_embd, 1, 1, 6} (rwkv7).
TensorId rwkvFusedLerp(LlmGraph& g, std::uint32_t layer) {
    return rwkvShapedWeight(g, layer, "time_mix_lerp_fused.weight", [](std::int64_t embd, std::int64_t rows) {
        return GraphBuilder::Shape{embd, 1, 1, rows};
    });
}

// After ggml_rwkv_wkv6 / wkv7: the first n_embd * n_tokens values are the tokens' output, the
// rest the sequences' new states, copied into the ubatch's cells of the s tensor (expanded here).
TensorId splitWkvOutput(LlmGraph& g, TensorId result, TensorId stateCache) {
    GraphBuilder& b = g.builder();
    const RwkvUbatch u = rwkvUbatch(g);
    const std::int64_t stateWidth = b[stateCache].ne[0]; // n_embd_s
    const TensorId output = b.view1d(result, u.embd * u.tokens, 0);
    const TensorId state = b.view1d(result, stateWidth * u.seqs, rwkvFloats(u.embd * u.tokens));
    const TensorId target =
        b.view1d(stateCache, stateWidth * u.seqs, rwkvFloats(stateWidth) * kRwkvStateHead);
    b.expand(b.cpy(state, target));
    return output;
}

// "group norm with head_count groups": each head's values LayerNormed, then time_mix_ln's weight
// and bias over the [n_embd, n_tokens] rows.
TensorId rwkvGroupNorm(LlmGraph& g, TensorId cur, std::int64_t heads, std::uint32_t il) {
    GraphBuilder& b = g.builder();
    const RwkvUbatch u = rwkvUbatch(g);
    cur = b.reshape(cur, {u.embd / heads, heads, u.tokens, 1});
    cur = b.norm(cur);
    cur = b.reshape(cur, {u.embd, u.tokens, 1, 1});
    return b.add(b.mul(cur, g.blockWeight(il, "time_mix_ln.weight")), g.blockWeight(il, "time_mix_ln.bias"));
}

// The five (or six) mixed inputs: rows of n_embd * n_tokens values one after another in `xxx`.
TensorId rwkvMixedInput(GraphBuilder& b, TensorId xxx, const RwkvUbatch& u, std::int64_t index) {
    return b.view2d(xxx, u.embd, u.tokens, b[xxx].nb[1], rwkvFloats(u.embd * u.tokens * index));
}

} // namespace

RwkvTokenShift loadRwkvTokenShift(LlmGraph& g, const RsInput& input, std::uint32_t il) {
    // llama-graph.cpp build_rwkv_token_shift_load: the r tensor's rows through build_rs, as
    // [n_embd, token_shift_count, n_seqs]; the models' graphs then view its first and second shift.
    GraphBuilder& b = g.builder();
    const RwkvUbatch u = rwkvUbatch(g);
    RwkvTokenShift shift;
    shift.cache = rsCache(g, il, true);
    const std::int64_t count = b[shift.cache].ne[0] / u.embd; // token_shift_count
    TensorId states = buildRs(g, input, shift.cache);
    states = b.reshape(states, {u.embd, count, u.seqs, 1});
    const std::uint64_t nb1 = b[states].nb[1];
    const std::uint64_t nb2 = b[states].nb[2];
    shift.attention = b.view3d(states, {u.embd, 1, u.seqs, 1}, nb1, nb2, 0);
    shift.feedForward = b.view3d(states, {u.embd, 1, u.seqs, 1}, nb1, nb2, rwkvFloats(u.embd));
    return shift;
}

TensorId rwkvPreviousTokens(LlmGraph& g, TensorId shift, TensorId normed) {
    // rwkv6.cpp / rwkv7.cpp: ggml_concat(shift, ggml_view_3d(normed, n_embd, n_seq_tokens - 1,
    // n_seqs, ...), 1).
    GraphBuilder& b = g.builder();
    const RwkvUbatch u = rwkvUbatch(g);
    const Tensor& x = b[normed];
    const TensorId first = b.view3d(normed, {u.embd, u.seqTokens - 1, u.seqs, 1}, x.nb[1], x.nb[2], 0);
    return b.concat(shift, first, 1);
}

void storeRwkvTokenShift(LlmGraph& g, const RwkvTokenShift& shift, TensorId attentionNorm,
                         TensorId feedForwardNorm) {
    // rwkv6.cpp / rwkv7.cpp: the last token of each norm, concatenated; then llama-graph.cpp
    // build_rwkv_token_shift_store: ggml_cpy of its n_embd * n_seqs * token_shift_count values into
    // the ubatch's cells of the r tensor.
    GraphBuilder& b = g.builder();
    const RwkvUbatch u = rwkvUbatch(g);
    const auto lastToken = [&](TensorId normed) {
        const Tensor& x = b[normed];
        return b.view3d(normed, {u.embd, 1, u.seqs, 1}, x.nb[1], x.nb[2],
                        rwkvFloats((u.seqTokens - 1) * u.embd));
    };
    const TensorId attentionLast = lastToken(attentionNorm);
    const TensorId shifts = b.concat(attentionLast, lastToken(feedForwardNorm), 1);
    const std::int64_t width = b[shift.cache].ne[0]; // n_embd_r
    const std::int64_t count = width / u.embd;
    const TensorId source = b.view1d(shifts, u.embd * u.seqs * count, 0);
    const TensorId target = b.view1d(shift.cache, width * u.seqs, rwkvFloats(width) * kRwkvStateHead);
    b.expand(b.cpy(source, target));
}

TensorId buildRwkv6TimeMix(LlmGraph& g, const RsInput& input, TensorId cur, TensorId previous,
                           std::uint32_t il) {
    // rwkv6-base.cpp build_rwkv6_time_mix.
    GraphBuilder& b = g.builder();
    const RwkvUbatch u = rwkvUbatch(g);
    const std::int64_t headSize = rwkvHeadSize(g, il);
    const std::int64_t heads = u.embd / headSize;
    const auto headsKv = static_cast<std::int64_t>(g.model().layers.at(il).headCountKv);
    const auto w = [&](std::string_view suffix) { return g.blockWeight(il, suffix); };
    // QRWKV (rwkv6qwen2) has no time_mix_first: gated linear attention instead of WKV6.
    const TensorId timeFirst = w("time_mix_first.weight");
    const bool qrwkv = timeFirst == kNoTensor;

    TensorId sx = b.sub(previous, cur);
    sx = b.reshape(sx, {u.embd, u.tokens, 1, 1});
    cur = b.reshape(cur, {u.embd, u.tokens, 1, 1});

    // The data-dependent lerp: tanh(x * w1) split into five, each times its slice of w2.
    TensorId xxx = b.add(b.mul(sx, w("time_mix_lerp_x.weight")), cur);
    const TensorId w1 = w("time_mix_w1.weight");
    xxx = b.unary(b.mulMat(w1, xxx), UnaryOp::Tanh);
    xxx = b.reshape(xxx, {b[w1].ne[1] / 5, 1, 5, u.tokens});
    const TensorId permuted = b.permute(xxx, {0, 1, 3, 2});
    xxx = b.cont(permuted, b[permuted].ne);
    // time_mix_w2 {time_mix_extra_dim, n_embd, 5}.
    const TensorId w2 =
        rwkvShapedWeight(g, il, "time_mix_w2.weight", [](std::int64_t extra, std::int64_t rows) {
            return GraphBuilder::Shape{extra, rows / 5, 5, 1};
        });
    xxx = b.mulMat(b.reshape(w2, {b[w2].ne[0], b[w2].ne[1], 1, 5}), xxx);

    TensorId xw = kNoTensor;
    TensorId xk = kNoTensor;
    TensorId xv = kNoTensor;
    TensorId xr = kNoTensor;
    TensorId xg = kNoTensor;
    if (const TensorId fused = rwkvFusedLerp(g, il); fused != kNoTensor) {
        // "fusing these weights makes some performance improvement": one add, mul and add over
        // all five, then five views.
        sx = b.reshape(sx, {u.embd, 1, u.tokens, 1});
        cur = b.reshape(cur, {u.embd, 1, u.tokens, 1});
        xxx = b.add(b.mul(b.add(xxx, fused), sx), cur);
        xw = rwkvMixedInput(b, xxx, u, 0);
        xk = rwkvMixedInput(b, xxx, u, 1);
        xv = rwkvMixedInput(b, xxx, u, 2);
        xr = rwkvMixedInput(b, xxx, u, 3);
        xg = rwkvMixedInput(b, xxx, u, 4);
    } else {
        // "for backward compatibility": a lerp weight per input.
        const auto lerp = [&](std::int64_t index, std::string_view suffix) {
            return b.add(b.mul(b.add(rwkvMixedInput(b, xxx, u, index), w(suffix)), sx), cur);
        };
        xw = lerp(0, "time_mix_lerp_w.weight");
        xk = lerp(1, "time_mix_lerp_k.weight");
        xv = lerp(2, "time_mix_lerp_v.weight");
        xr = lerp(3, "time_mix_lerp_r.weight");
        xg = lerp(4, "time_mix_lerp_g.weight");
    }
    TensorId r = g.addBias(g.project(w("time_mix_receptance.weight"), xr), il, "time_mix_receptance.bias");
    TensorId k = g.addBias(g.project(w("time_mix_key.weight"), xk), il, "time_mix_key.bias");
    TensorId v = g.addBias(g.project(w("time_mix_value.weight"), xv), il, "time_mix_value.bias");
    TensorId gate = g.project(w("time_mix_gate.weight"), xg);
    gate = b.unary(gate, qrwkv ? UnaryOp::Sigmoid : UnaryOp::Silu);
    if (headsKv != 0 && headsKv != heads) {
        // Grouped K and V heads repeated to the query heads (ggml_repeat onto a [head_size,
        // n_head / n_head_kv, n_head_kv, n_tokens] shape).
        const GraphBuilder::Shape repeated{headSize, heads / headsKv, headsKv, u.tokens};
        k = b.repeat(b.reshape(k, {headSize, 1, headsKv, u.tokens}), repeated);
        v = b.repeat(b.reshape(v, {headSize, 1, headsKv, u.tokens}), repeated);
    }
    k = b.reshape(k, {headSize, heads, u.tokens, 1});
    v = b.reshape(v, {headSize, heads, u.tokens, 1});
    r = b.reshape(r, {headSize, heads, u.tokens, 1});

    // The decay: exp(-exp(time_decay + tanh(xw * decay_w1) * decay_w2)).
    TensorId decay = b.unary(b.mulMat(w("time_mix_decay_w1.weight"), xw), UnaryOp::Tanh);
    decay = b.mulMat(w("time_mix_decay_w2.weight"), decay);
    decay = b.add(decay, w("time_mix_decay.weight"));
    decay = b.unary(b.unary(b.unary(decay, UnaryOp::Exp), UnaryOp::Neg), UnaryOp::Exp);
    decay = b.reshape(decay, {headSize, heads, u.tokens, 1});
    if (qrwkv) {
        k = b.sub(k, b.mul(k, decay)); // k * (1 - w)
    }

    const TensorId stateCache = rsCache(g, il, false);
    const TensorId state = buildRs(g, input, stateCache);
    const TensorId result =
        qrwkv ? b.gatedLinearAttn(k, v, r, decay, state) : b.rwkvWkv6(k, v, r, timeFirst, decay, state);
    cur = splitWkvOutput(g, result, stateCache);

    cur = qrwkv ? b.reshape(cur, {u.embd, u.tokens, 1, 1}) : rwkvGroupNorm(g, cur, heads, il);
    cur = b.mul(cur, gate);
    cur = g.project(w("time_mix_output.weight"), cur);
    return b.reshape(cur, {u.embd, u.seqTokens, u.seqs, 1});
}

TensorId buildRwkv7TimeMix(LlmGraph& g, const RsInput& input, TensorId cur, TensorId previous,
                           TensorId& firstValue, std::uint32_t il) {
    // rwkv7-base.cpp build_rwkv7_time_mix.
    GraphBuilder& b = g.builder();
    const RwkvUbatch u = rwkvUbatch(g);
    const std::int64_t headSize = rwkvHeadSize(g, il);
    const std::int64_t heads = u.embd / headSize;
    const auto w = [&](std::string_view suffix) { return g.blockWeight(il, suffix); };
    const TensorId g1 = w("time_mix_g1.weight");
    const TensorId g2 = w("time_mix_g2.weight");
    const bool gating = g1 != kNoTensor && g2 != kNoTensor;

    // sx repeated once per mixed input (ggml_repeat onto a [n_embd, n_seq_tokens, n_seqs, 5 or 6]
    // shape), lerped with the fused weights, then viewed as r, w, k, v, a (and g) inputs.
    TensorId sx = b.sub(previous, cur);
    sx = b.repeat(sx, {u.embd, u.seqTokens, u.seqs, gating ? 6 : 5});
    const TensorId xxx = b.add(b.mul(sx, rwkvFusedLerp(g, il)), cur);
    const TensorId xr = rwkvMixedInput(b, xxx, u, 0);
    const TensorId xw = rwkvMixedInput(b, xxx, u, 1);
    const TensorId xk = rwkvMixedInput(b, xxx, u, 2);
    const TensorId xv = rwkvMixedInput(b, xxx, u, 3);
    const TensorId xa = rwkvMixedInput(b, xxx, u, 4);
    const TensorId xg = gating ? rwkvMixedInput(b, xxx, u, 5) : kNoTensor;

    TensorId r = g.project(w("time_mix_receptance.weight"), xr);
    // The decay: exp(-0.606531 * sigmoid(w0 + tanh(xw * w1) * w2)).
    TensorId decay =
        b.mulMat(w("time_mix_w2.weight"), b.unary(b.mulMat(w("time_mix_w1.weight"), xw), UnaryOp::Tanh));
    decay = b.add(decay, w("time_mix_w0.weight"));
    decay = b.unary(b.scale(b.unary(decay, UnaryOp::Sigmoid)), UnaryOp::Exp);

    TensorId k = g.project(w("time_mix_key.weight"), xk);
    TensorId v = g.project(w("time_mix_value.weight"), xv);
    if (firstValue == kNoTensor) {
        firstValue = v;
    } else {
        // "Add the first layer value as a residual connection": v + (v_first - v) * sigmoid(v0 +
        // xv * v1 * v2).
        TensorId mix = b.mulMat(w("time_mix_v2.weight"), b.mulMat(w("time_mix_v1.weight"), xv));
        mix = b.unary(b.add(mix, w("time_mix_v0.weight")), UnaryOp::Sigmoid);
        v = b.add(v, b.mul(b.sub(firstValue, v), mix));
    }
    TensorId gate = kNoTensor;
    if (gating) {
        gate = b.mulMat(g2, b.unary(b.mulMat(g1, xg), UnaryOp::Sigmoid));
    }
    TensorId a = b.mulMat(w("time_mix_a2.weight"), b.mulMat(w("time_mix_a1.weight"), xa));
    a = b.unary(b.add(a, w("time_mix_a0.weight")), UnaryOp::Sigmoid);

    TensorId kk = b.reshape(b.mul(k, w("time_mix_k_k.weight")), {headSize, heads, u.tokens, 1});
    kk = b.l2Norm(kk);
    const TensorId ka = b.mul(k, w("time_mix_k_a.weight"));
    k = b.add(k, b.sub(b.mul(a, ka), ka));

    const GraphBuilder::Shape headShape{headSize, heads, u.tokens, 1};
    r = b.reshape(r, headShape);
    decay = b.reshape(decay, headShape);
    k = b.reshape(k, headShape);
    v = b.reshape(v, headShape);
    a = b.reshape(a, headShape);

    const TensorId stateCache = rsCache(g, il, false);
    const TensorId state = buildRs(g, input, stateCache);
    const TensorId result = b.rwkvWkv7(r, decay, k, v, b.unary(kk, UnaryOp::Neg), b.mul(kk, a), state);
    cur = splitWkvOutput(g, result, stateCache);

    if (w("time_mix_ln.weight") != kNoTensor && w("time_mix_ln.bias") != kNoTensor) {
        cur = rwkvGroupNorm(g, cur, heads, il);
    } else {
        cur = b.reshape(cur, {u.embd, u.tokens, 1, 1});
    }
    // The bonus term: v * sum over each head of k * r * r_k.
    const TensorId rk =
        b.sumRows(b.mul(b.mul(k, r), b.reshape(w("time_mix_r_k.weight"), {headSize, heads, 1, 1})));
    cur = b.add(cur, b.reshape(b.mul(v, rk), {u.embd, u.tokens, 1, 1}));
    if (gating) {
        cur = b.mul(cur, gate);
    }
    cur = g.project(w("time_mix_output.weight"), cur);
    return b.reshape(cur, {u.embd, u.seqTokens, u.seqs, 1});
}

TensorId buildRwkv6ChannelMix(LlmGraph& g, TensorId cur, TensorId previous, std::uint32_t il) {
    // rwkv6-base.cpp build_rwkv6_channel_mix: sigmoid(receptance * xr) * (value * relu(key * xk)^2).
    GraphBuilder& b = g.builder();
    const TensorId sx = b.sub(previous, cur);
    const TensorId xk = b.add(b.mul(sx, g.blockWeight(il, "channel_mix_lerp_k.weight")), cur);
    const TensorId xr = b.add(b.mul(sx, g.blockWeight(il, "channel_mix_lerp_r.weight")), cur);
    const TensorId r =
        b.unary(g.project(g.blockWeight(il, "channel_mix_receptance.weight"), xr), UnaryOp::Sigmoid);
    const TensorId k =
        b.sqr(b.unary(g.project(g.blockWeight(il, "channel_mix_key.weight"), xk), UnaryOp::Relu));
    return b.mul(r, g.project(g.blockWeight(il, "channel_mix_value.weight"), k));
}

TensorId buildRwkv7ChannelMix(LlmGraph& g, TensorId cur, TensorId previous, std::uint32_t il) {
    // rwkv7-base.cpp build_rwkv7_channel_mix: value * relu(key * xk)^2.
    GraphBuilder& b = g.builder();
    const TensorId sx = b.sub(previous, cur);
    const TensorId xk = b.add(b.mul(sx, g.blockWeight(il, "channel_mix_lerp_k.weight")), cur);
    const TensorId k =
        b.sqr(b.unary(g.project(g.blockWeight(il, "channel_mix_key.weight"), xk), UnaryOp::Relu));
    return g.project(g.blockWeight(il, "channel_mix_value.weight"), k);
}

TensorId rwkvOutputHead(LlmGraph& g, TensorId x) {
    // rwkv6.cpp / rwkv7.cpp: build_norm(output_norm, output_norm_b, LLM_NORM, -1), then the output.
    GraphBuilder& b = g.builder();
    const TensorId normed =
        g.norm(x, g.weight("output_norm.weight"), g.weight("output_norm.bias"), false, -1);
    b.setOutput(normed);
    const TensorId logits = g.project(g.outputWeight(), normed);
    b.setOutput(logits);
    b.expand(logits);
    return logits;
}

} // namespace llamafit::graph

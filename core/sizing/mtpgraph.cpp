// The Qwen3.5 NextN block's graph; see mtpgraph.h. Node order and shapes follow the graph the
// server hands to ggml-alloc (dumped with scripts/alloc-plan/allocdump.c): graph inputs first
// in the order the builder makes them, then each node after its sources.
#include "core/sizing/mtpgraph.h"

#include "core/sizing/graphreplay.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>
#include <vector>

namespace llamafit {
namespace {

using Id = GraphReplay::Id;
using Layout = GraphReplay::Layout;
using namespace replay;

struct MtpDims {
    std::uint64_t tokens = 0;  // n_ubatch rounded up to a multiple of the slots
    std::uint64_t outputs = 0; // one per slot
    std::uint64_t embd = 0;
    std::uint64_t heads = 0;
    std::uint64_t kvHeads = 0;
    std::uint64_t headDim = 0;
    std::uint64_t cells = 0; // KV cells per stream: what the reserve's mask and KQ span
    std::uint64_t streams = 1;
    std::uint64_t vocab = 0;
};

// build_norm (RMS): the norm, then the weight multiplied in place.
Id rmsNorm(GraphReplay& g, Id x, Layout layout) {
    return g.node(layout, {g.node(layout, {x}, kInPlace)}, kInPlace);
}

// build_attn after RoPE: Q, K and V are written into the cache and read back from it; returns
// the attention output as [n_head * head_dim, n_tokens].
Id attention(GraphReplay& g, const MtpDims& d, bool flash, Id q, Id k, Id vReshaped, Id kIndices, Id vIndices,
             Id mask) {
    const Layout flat = f32(d.heads * d.headDim, d.tokens);
    g.write({g.reshape(k, f32(d.kvHeads * d.headDim, d.tokens)), kIndices});
    if (flash) {
        g.write({g.view(vReshaped), vIndices});
        const Id out = g.node(f32(d.headDim, d.heads, d.tokens), {g.view(g.view(q)), mask});
        return g.reshape(out, flat);
    }
    // Without flash attention V is stored transposed: one index per value (llama-kv-cache.cpp cpy_v).
    const Id vRows = g.reshape(g.reshape(vReshaped, f32(d.kvHeads * d.headDim, d.tokens)),
                               f32(1, d.tokens * d.kvHeads * d.headDim));
    g.write({vRows, vIndices});
    const std::uint64_t perStream = d.tokens / d.streams;
    const Id kq = g.node(f32(d.cells, perStream, d.heads, d.streams), {g.view(g.view(q))});
    const Id softmax = g.node(f32(d.cells, perStream, d.heads, d.streams), {kq, mask}, kInPlace);
    const Id kqv = g.node(f32(d.headDim, perStream, d.heads, d.streams), {softmax});
    return g.node(flat, {g.view(kqv)});
}

// build_moe_ffn with softmax gating, normalised top-k weights and SwiGLU experts; returns the
// sum of the weighted experts. `x` is the post-attention norm.
Id routedExperts(GraphReplay& g, const ModelInfo& model, const MtpDims& d, Id x) {
    const std::uint64_t experts = model.expertCount;
    const std::uint64_t used = model.expertUsedCount;
    const std::uint64_t ff = model.expertFeedForwardLength;
    const Id logits = g.node(f32(experts, d.tokens), {x});
    const Id probs = g.node(f32(experts, d.tokens), {logits}, kInPlace);
    const Id probsRows = g.reshape(probs, f32(1, experts, d.tokens));
    const Id order = g.node(f32(experts, d.tokens), {probs}); // argsort: i32, the same bytes
    const Id topk = g.view(order);
    const Id weights = g.node(f32(1, used, d.tokens), {probsRows, topk});
    const Id weightsFlat = g.reshape(weights, f32(used, d.tokens));
    const Id sum = g.node(f32(1, d.tokens), {weightsFlat});
    const Id clamped = g.node(f32(1, d.tokens), {sum});
    const Id normed = g.node(f32(used, d.tokens), {weightsFlat, clamped}, kInPlace);
    const Id normedRows = g.reshape(normed, f32(1, used, d.tokens));
    const Id xRows = g.reshape(x, f32(d.embd, 1, d.tokens));
    const Id gate = g.node(f32(ff, used, d.tokens), {xRows, topk});
    const Id up = g.node(f32(ff, used, d.tokens), {xRows, topk});
    const Id act = g.node(f32(ff, used, d.tokens), {gate, up});
    const Id down = g.node(f32(d.embd, used, d.tokens), {act, topk});
    const Id weighted = g.node(f32(d.embd, used, d.tokens), {down, normedRows}, kInPlace);
    std::vector<Id> slices;
    for (std::uint64_t e = 0; e < used; ++e) {
        slices.push_back(g.view(weighted));
    }
    Id sumOfExperts = slices[0];
    for (std::size_t e = 1; e < slices.size(); ++e) {
        sumOfExperts = g.node(f32(d.embd, d.tokens), {sumOfExperts, slices[e]}, kInPlace);
    }
    return sumOfExperts;
}

// build_ffn with SwiGLU (gate and up in parallel); returns the down projection.
Id gatedFeedForward(GraphReplay& g, const MtpDims& d, std::uint64_t ff, Id x) {
    const Id gate = g.node(f32(ff, d.tokens), {x});
    const Id up = g.node(f32(ff, d.tokens), {x});
    const Id act = g.node(f32(ff, d.tokens), {gate, up});
    return g.node(f32(d.embd, d.tokens), {act});
}

std::uint64_t qwen35NextnBytes(const ModelInfo& model, const MtpDims& d, bool flash) {
    GraphReplay g;
    const Layout hidden = f32(d.embd, d.tokens);
    // Inputs, in the builder's order: token ids, the target's hidden state, M-RoPE positions
    // (four per token), the cache's K and V row indices, the KQ mask, the output row ids.
    const Id tokens = g.input({4, {d.tokens, 1, 1, 1}});
    const Id hiddenInput = g.input(hidden);
    const Id positions = g.input({4, {4 * d.tokens, 1, 1, 1}});
    const Id kIndices = g.input({8, {d.tokens, 1, 1, 1}});
    const Id vIndices = g.input({8, {flash ? d.tokens : d.tokens * d.kvHeads * d.headDim, 1, 1, 1}});
    const Id mask = g.input({flash ? 2u : 4u, {d.cells, d.tokens / d.streams, 1, d.streams}});
    const Id outputIds = g.input({4, {d.outputs, 1, 1, 1}});

    const Id embedded = g.node(hidden, {tokens});
    const Id embeddingNorm = rmsNorm(g, embedded, hidden);
    const Id hiddenNorm = rmsNorm(g, hiddenInput, hidden);
    const Id concat = g.node(f32(2 * d.embd, d.tokens), {embeddingNorm, hiddenNorm});
    const Id projected = g.node(hidden, {concat}); // eh_proj: the block's residual
    const Id attnNorm = rmsNorm(g, projected, hidden);

    // The joint query-and-gate projection; Q is a strided view of it, normed and roped.
    const Id queryGate = g.node(f32(2 * d.heads * d.headDim, d.tokens), {attnNorm});
    const Layout qLayout = f32(d.headDim, d.heads, d.tokens);
    const Id q = g.node(qLayout, {rmsNorm(g, g.view(queryGate), qLayout), positions}, kInPlace);
    const Layout kvLayout = f32(d.headDim, d.kvHeads, d.tokens);
    const Id v = g.node(f32(d.kvHeads * d.headDim, d.tokens), {attnNorm});
    const Id vReshaped = g.reshape(v, kvLayout);
    const Id kProjection = g.node(f32(d.kvHeads * d.headDim, d.tokens), {attnNorm});
    const Id k =
        g.node(kvLayout, {rmsNorm(g, g.reshape(kProjection, kvLayout), kvLayout), positions}, kInPlace);
    const Id attn = attention(g, d, flash, q, k, vReshaped, kIndices, vIndices, mask);
    const Layout flat = f32(d.heads * d.headDim, d.tokens);
    const Id gate = g.node(flat, {g.view(queryGate)});
    const Id gated = g.node(flat, {attn, g.node(flat, {gate}, kInPlace)}, kInPlace);
    const Id attnOut = g.node(hidden, {gated});
    const Id residual = g.node(hidden, {attnOut, projected}, kInPlace);
    const Id postNorm = rmsNorm(g, residual, hidden);

    Id ffnOut = 0;
    if (model.expertCount > 0) {
        ffnOut = routedExperts(g, model, d, postNorm);
        if (model.sharedExpertFeedForwardLength > 0) {
            const Id shared = gatedFeedForward(g, d, model.sharedExpertFeedForwardLength, postNorm);
            const Id sharedGate = g.node(f32(1, d.tokens), {g.node(f32(1, d.tokens), {postNorm})}, kInPlace);
            ffnOut = g.node(hidden, {ffnOut, g.node(hidden, {shared, sharedGate}, kInPlace)}, kInPlace);
        }
    } else {
        ffnOut = gatedFeedForward(g, d, model.layers.back().feedForwardLength, postNorm);
    }
    const Id blockOut = g.node(hidden, {ffnOut, residual}, kInPlace);
    // h_nextn is a graph output (the next draft step's hidden state): it is never freed.
    const Id headNorm = rmsNorm(g, blockOut, hidden);
    g.markOutput(headNorm);
    const Id rows = g.node(f32(d.embd, d.outputs), {headNorm, outputIds});
    g.markOutput(g.node(f32(d.vocab, d.outputs), {rows}));
    return g.plannedBytes();
}

} // namespace

std::optional<std::uint64_t> mtpGraphBytes(const ModelInfo& model, const ResolvedContext& context,
                                           const KvCacheEstimate& kv) {
    if ((model.architecture != "qwen35moe" && model.architecture != "qwen35") || model.layers.empty()) {
        return std::nullopt;
    }
    const LayerInfo& block = model.layers.back();
    MtpDims d;
    d.streams = std::max<std::uint64_t>(kv.streams, 1);
    d.tokens = reserveTokens(context);
    d.outputs = std::max<std::uint64_t>(context.nOutputs, 1);
    d.embd = model.embeddingLength;
    d.heads = block.headCount;
    d.kvHeads = block.headCountKv;
    d.headDim = block.keyHeadDim;
    d.cells = kv.cells;
    d.vocab = model.vocabularySize;
    if (d.heads == 0 || d.kvHeads == 0 || d.headDim == 0 || d.cells == 0 ||
        (model.expertCount > 0 && model.expertUsedCount == 0)) {
        return std::nullopt;
    }
    return qwen35NextnBytes(model, d, context.flashAttention);
}

} // namespace llamafit

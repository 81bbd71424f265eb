// The recurrent-state graph parts; see recurrent.h. Each function restates the llama.cpp b11669
// function named beside it; where b11669's order or shape differs from the source in the index,
// the plan dumps of b11669 (tests/data/plans/*mamba*) decided, as noted.
#include "core/sizing/graph/recurrent.h"

#include <algorithm>

namespace llamafit::graph {
namespace {

std::uint64_t elements(const Tensor& t) {
    return static_cast<std::uint64_t>(t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]);
}

// The ubatch's split: n_seqs sequences of n_seq_tokens tokens each (ubatch.equal_seqs()).
struct SeqSplit {
    std::int64_t seqs = 1;
    std::int64_t seqTokens = 1;
};

SeqSplit seqSplit(const LlmGraph& g) {
    const auto seqs = static_cast<std::int64_t>(std::max<std::uint32_t>(g.params().reserve.sequences, 1));
    return {seqs, static_cast<std::int64_t>(g.tokens()) / seqs};
}

std::int64_t weightExtent(LlmGraph& g, std::uint32_t layer, std::string_view suffix, std::size_t dim) {
    const TensorId w = g.blockWeight(layer, suffix);
    return w == kNoTensor ? 0 : g.builder()[w].ne[dim];
}

// The conv state's copy back: the last d_conv - 1 columns of conv_x into the ubatch's cells, the
// cache seen as one flat row (build_mamba_layer's ggml_view_1d) or, in b11669's Mamba-2 (the dumps),
// as [n_embd_r, n_seqs] rows.
void storeConvState(GraphBuilder& b, TensorId convX, TensorId cache, std::int64_t convWidth,
                    std::int64_t channels, SeqSplit split, bool rows) {
    const Tensor& x = b[convX];
    const TensorId last = b.view3d(convX, {convWidth - 1, channels, split.seqs, 1}, x.nb[1], x.nb[2],
                                   static_cast<std::uint64_t>(split.seqTokens) * x.nb[0]);
    const Tensor& c = b[cache];
    const TensorId target = rows ? b.view2d(cache, c.ne[0], split.seqs, c.nb[1], kRsHead * c.nb[1])
                                 : b.view1d(cache, c.ne[0] * split.seqs, kRsHead * c.nb[1]);
    b.expand(b.cpy(last, target));
}

// The SSM state's copy back: the scan's last states (after every token's y) into the ubatch's cells,
// flat (build_mamba_layer) or as [n_embd_s, n_seqs] rows (b11669's Mamba-2, the dumps).
void storeSsmState(GraphBuilder& b, TensorId scan, TensorId x, TensorId cache, SeqSplit split, bool rows) {
    const Tensor& c = b[cache];
    const std::uint64_t offset = elements(b[x]) * kF32Bytes;
    const std::int64_t flat = c.ne[0] * split.seqs;
    const TensorId states =
        rows ? b.view2d(scan, c.ne[0], split.seqs, c.nb[1], offset) : b.view1d(scan, flat, offset);
    const TensorId target = rows ? b.view2d(cache, c.ne[0], split.seqs, c.nb[1], kRsHead * c.nb[1])
                                 : b.view1d(cache, flat, kRsHead * c.nb[1]);
    b.expand(b.cpy(states, target));
}

} // namespace

RsInput buildRsInput(LlmGraph& g) {
    // build_inp_rs: s_copy, I32 [n_rs] (a reserve reads every cell), and the two views of it every
    // layer shares (b11669, the dumps): the ubatch's sequences' ids, the first n_seqs, and the ids
    // past the first cell, from which build_rs keeps the extra rows.
    GraphBuilder& b = g.builder();
    const auto nRs = static_cast<std::int64_t>(g.params().rsCells);
    RsInput input;
    input.stateCopy = b.input(GgmlType::I32, {nRs, 1, 1, 1}, "rs_s_copy");
    input.mainIds = b.view1d(input.stateCopy, seqSplit(g).seqs, 0);
    input.extraIds = b.view1d(input.stateCopy, nRs - 1, b[input.stateCopy].nb[0]);
    return input;
}

TensorId rsCache(LlmGraph& g, std::uint32_t layer, bool convState) {
    // llama-memory-recurrent.cpp: f32 r and s tensors of [n_embd_r or n_embd_s, mem_size] per layer.
    const LayerInfo& info = g.model().layers.at(layer);
    const auto width =
        static_cast<std::int64_t>(convState ? info.recurrentConvWidth : info.recurrentStateWidth);
    GraphBuilder& b = g.builder();
    const BufferId buffer = b.addBuffer(g.params().rsBuffers.at(layer));
    return b.leaf(GgmlType::F32, {width, static_cast<std::int64_t>(g.params().rsRows), 1, 1},
                  (convState ? "cache_r_l" : "cache_s_l") + std::to_string(layer), buffer);
}

TensorId buildRs(LlmGraph& g, const RsInput& input, TensorId cache, const RsRowsFn& getRows) {
    GraphBuilder& b = g.builder();
    const SeqSplit split = seqSplit(g);
    const auto nRs = static_cast<std::int64_t>(g.params().rsCells);
    const Tensor& s = b[cache];
    const std::int64_t stateSize = s.ne[0];
    const std::uint64_t rowBytes = s.nb[1];
    // build_rs: the cache as [state_size, rs_size]; one cleared state (rs_z, the first cell of an
    // empty cache) zeroed in place by a scale of 0.
    const TensorId states = b.reshape(cache, {stateSize, s.ne[1], 1, 1});
    b.expand(b.scaleInPlace(b.view1d(states, stateSize, 0)));
    // The cells past the ubatch's sequences, where their unchanged states are copied back.
    const auto extraTarget = [&] {
        return b.view2d(cache, stateSize, nRs - split.seqs, rowBytes, (kRsHead + split.seqs) * rowBytes);
    };
    if (!getRows) {
        // b11669 (the dumps): one get_rows over all of s_copy; the ubatch's sequences are its first
        // n_seqs rows, the rest (n_seqs .. n_rs) are copied back unchanged.
        const TensorId all = b.getRows(states, input.stateCopy);
        const std::uint64_t allRow = b[all].nb[1];
        const TensorId output = b.view2d(all, stateSize, split.seqs, allRow, 0);
        b.expand(output);
        const TensorId extra = b.view2d(all, stateSize, nRs - split.seqs, allRow,
                                        static_cast<std::uint64_t>(split.seqs) * allRow);
        b.expand(b.cpy(extra, extraTarget()));
        return output;
    }
    // A row getter of its own (the SSM scan reads its states through the ids): the ubatch's ids are
    // the first n_seqs of s_copy. b11669 (the dumps) then gathers the rows of s_copy past the first
    // and keeps those from n_seqs on, the extra rows to copy back; a reserve has n_rs == n_seqs,
    // so none.
    const TensorId output = getRows(states, input.mainIds);
    b.expand(output);
    const TensorId gathered = b.getRows(states, input.extraIds);
    const std::uint64_t gatheredRow = b[gathered].nb[1];
    const TensorId extra = b.view2d(gathered, stateSize, nRs - split.seqs, gatheredRow,
                                    static_cast<std::uint64_t>(split.seqs - 1) * gatheredRow);
    b.expand(b.cpy(extra, extraTarget()));
    return output;
}

TensorId buildMambaLayer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t il) {
    // graph-context-mamba.cpp build_mamba_layer: head_dim 1, n_head = d_inner.
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const SeqSplit split = seqSplit(g);
    const auto dConv = static_cast<std::int64_t>(model.ssmConvKernel);
    const auto dInner = static_cast<std::int64_t>(model.ssmInnerSize);
    const auto dState = static_cast<std::int64_t>(model.ssmStateSize);
    const std::int64_t dtRank = weightExtent(g, il, "ssm_dt.weight", 0);

    const TensorId convCache = rsCache(g, il, true);
    const TensorId ssmCache = rsCache(g, il, false);
    TensorId conv = buildRs(g, input, convCache);
    conv = b.reshape(conv, {dConv - 1, dInner, split.seqs, 1});

    cur = b.reshape(cur, {b[cur].ne[0], split.seqTokens, split.seqs, 1});
    const TensorId xz = g.project(g.blockWeight(il, "ssm_in.weight"), cur);
    const Tensor& xzT = b[xz];
    TensorId x = b.view3d(xz, {dInner, xzT.ne[1], xzT.ne[2], 1}, xzT.nb[1], xzT.nb[2], 0);
    const TensorId z = b.view3d(xz, {dInner, xzT.ne[1], xzT.ne[2], 1}, xzT.nb[1], xzT.nb[2],
                                static_cast<std::uint64_t>(dInner) * kF32Bytes);

    const TensorId convX = b.concat(conv, b.transpose(x), 0);
    storeConvState(b, convX, convCache, dConv, dInner, split, false);
    x = b.ssmConv(convX, g.blockWeight(il, "ssm_conv1d.weight"));
    x = b.add(x, g.blockWeight(il, "ssm_conv1d.bias"));
    x = b.unary(x, UnaryOp::Silu);

    const TensorId xdb = g.project(g.blockWeight(il, "ssm_x.weight"), x);
    const Tensor& xdbT = b[xdb];
    TensorId dt = b.view3d(xdb, {dtRank, split.seqTokens, split.seqs, 1}, xdbT.nb[1], xdbT.nb[2], 0);
    const auto bcView = [&](std::int64_t offsetValues) {
        return b.view(xdb, {dState, 1, split.seqTokens, split.seqs},
                      {static_cast<std::uint64_t>(dState) * xdbT.nb[0], xdbT.nb[1], xdbT.nb[2]},
                      static_cast<std::uint64_t>(offsetValues) * kF32Bytes);
    };
    TensorId B = bcView(dtRank);
    TensorId C = bcView(dtRank + dState);
    // Jamba's variant RMS-norms dt, B and C (ssm_dt_norm, ssm_b_norm, ssm_c_norm); b11669 (the
    // dumps) otherwise makes dt contiguous before ssm_dt.
    const TensorId dtNorm = g.blockWeight(il, "ssm_dt_norm.weight");
    const TensorId bNorm = g.blockWeight(il, "ssm_b_norm.weight");
    const TensorId cNorm = g.blockWeight(il, "ssm_c_norm.weight");
    if (dtNorm != kNoTensor && bNorm != kNoTensor && cNorm != kNoTensor) {
        const int normLayer = static_cast<int>(il);
        dt = g.norm(dt, dtNorm, kNoTensor, true, normLayer);
        B = g.norm(B, bNorm, kNoTensor, true, normLayer);
        C = g.norm(C, cNorm, kNoTensor, true, normLayer);
    } else {
        dt = b.cont(dt, b[dt].ne);
    }
    dt = g.project(g.blockWeight(il, "ssm_dt.weight"), dt);
    dt = b.add(dt, g.blockWeight(il, "ssm_dt.bias"));

    const TensorId xFlat = x;
    x = b.reshape(x, {1, dInner, split.seqTokens, split.seqs});
    const TensorId A = g.blockWeight(il, "ssm_a");
    const std::int64_t rows = b[ssmCache].ne[1];
    const TensorId yssm = buildRs(g, input, ssmCache, [&](TensorId states, TensorId ids) {
        return b.ssmScan(b.reshape(states, {dState, 1, dInner, rows}), x, dt, A, B, C, ids);
    });
    storeSsmState(b, yssm, x, ssmCache, split, false);

    TensorId y = b.view3d(yssm, {dInner, split.seqTokens, split.seqs, 1}, b[x].nb[2], b[x].nb[3], 0);
    y = b.add(y, b.mul(xFlat, g.blockWeight(il, "ssm_d")));
    y = b.glu(b.cont(z, b[z].ne), y, GluOp::Swiglu);
    cur = g.project(g.blockWeight(il, "ssm_out.weight"), y);
    return b.reshape(cur, {b[cur].ne[0], split.seqTokens * split.seqs, 1, 1});
}

TensorId buildMamba2Layer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t il) {
    // graph-context-mamba.cpp build_mamba2_layer: n_head = dt_rank (ssm_dt.bias), grouped B and C.
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    const SeqSplit split = seqSplit(g);
    const auto dConv = static_cast<std::int64_t>(model.ssmConvKernel);
    const auto dInner = static_cast<std::int64_t>(model.ssmInnerSize);
    const auto dState = static_cast<std::int64_t>(model.ssmStateSize);
    const auto nGroup = static_cast<std::int64_t>(std::max<std::uint32_t>(model.ssmGroupCount, 1));
    const std::int64_t nHead = weightExtent(g, il, "ssm_dt.bias", 0);
    const std::int64_t headDim = dInner / nHead;
    const std::int64_t channels = dInner + 2 * nGroup * dState;

    const TensorId convCache = rsCache(g, il, true);
    const TensorId ssmCache = rsCache(g, il, false);
    TensorId conv = buildRs(g, input, convCache);
    conv = b.reshape(conv, {dConv - 1, channels, split.seqs, 1});

    // b11669 (the dumps): the projection of the 2-D input, then split into sequences.
    TensorId zxBCdt = g.project(g.blockWeight(il, "ssm_in.weight"), cur);
    zxBCdt = b.reshape(zxBCdt, {b[zxBCdt].ne[0], split.seqTokens, split.seqs, 1});
    const Tensor& zT = b[zxBCdt];
    const TensorId z = b.view(zxBCdt, {headDim, nHead, split.seqTokens, split.seqs},
                              {static_cast<std::uint64_t>(headDim) * zT.nb[0], zT.nb[1], zT.nb[2]}, 0);
    TensorId xBC = b.view3d(zxBCdt, {channels, split.seqTokens, split.seqs, 1}, zT.nb[1], zT.nb[2],
                            static_cast<std::uint64_t>(dInner) * kF32Bytes);
    TensorId dt = b.view3d(zxBCdt, {nHead, split.seqTokens, split.seqs, 1}, zT.nb[1], zT.nb[2],
                           static_cast<std::uint64_t>(2 * dInner + 2 * nGroup * dState) * kF32Bytes);

    const TensorId convX = b.concat(conv, b.transpose(xBC), 0);
    storeConvState(b, convX, convCache, dConv, channels, split, true);
    xBC = b.ssmConv(convX, g.blockWeight(il, "ssm_conv1d.weight"));
    xBC = g.addBias(xBC, il, "ssm_conv1d.bias"); // optional in falcon-h1's tensors
    xBC = b.unary(xBC, UnaryOp::Silu);

    // x, B and C (V, K and Q of the SSM/attention duality) as views of the convolved xBC.
    const Tensor& xT = b[xBC];
    const auto headView = [&](std::int64_t ne0, std::int64_t ne1, std::int64_t offsetValues) {
        return b.view(xBC, {ne0, ne1, split.seqTokens, split.seqs},
                      {static_cast<std::uint64_t>(ne0) * xT.nb[0], xT.nb[1], xT.nb[2]},
                      static_cast<std::uint64_t>(offsetValues) * kF32Bytes);
    };
    const TensorId x = headView(headDim, nHead, 0);
    const TensorId B = headView(dState, nGroup, dInner);
    const TensorId C = headView(dState, nGroup, dInner + nGroup * dState);
    dt = b.add(b.cont(dt, b[dt].ne), g.blockWeight(il, "ssm_dt.bias"));
    const TensorId A = g.blockWeight(il, "ssm_a");
    const std::int64_t rows = b[ssmCache].ne[1];
    const TensorId yssm = buildRs(g, input, ssmCache, [&](TensorId states, TensorId ids) {
        return b.ssmScan(b.reshape(states, {dState, headDim, nHead, rows}), x, dt, A, B, C, ids);
    });
    storeSsmState(b, yssm, x, ssmCache, split, true);

    // y as a contiguous [head_dim, n_head, n_seq_tokens, n_seqs] view of the scan's output (x itself
    // is a strided view of xBC).
    const std::uint64_t headBytes = b[x].nb[1];
    const auto heads = static_cast<std::uint64_t>(nHead);
    TensorId y = b.view(
        yssm, {headDim, nHead, split.seqTokens, split.seqs},
        {headBytes, heads * headBytes, static_cast<std::uint64_t>(split.seqTokens) * heads * headBytes}, 0);
    y = b.add(y, b.mul(x, g.blockWeight(il, "ssm_d")));
    y = b.glu(b.cont(z, b[z].ne), y, GluOp::Swiglu);

    // The grouped RMS norm, then the output projection of the 2-D y (b11669, the dumps).
    if (const TensorId norm = g.blockWeight(il, "ssm_norm.weight"); norm != kNoTensor) {
        y = b.reshape(y, {dInner / nGroup, nGroup, split.seqTokens, split.seqs});
        y = g.norm(y, norm, kNoTensor, true, static_cast<int>(il));
    }
    y = b.reshape(y, {dInner, split.seqTokens * split.seqs, 1, 1});
    return g.project(g.blockWeight(il, "ssm_out.weight"), y);
}

TensorId buildShortConvLayer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t il) {
    // lfm2.cpp build_shortconv_block: the conv state keeps the last d_conv = l_cache - 1 columns of
    // each of the n_embd channels (n_embd_r = d_conv * n_embd); there is no SSM state.
    GraphBuilder& b = g.builder();
    const SeqSplit split = seqSplit(g);
    const std::int64_t embd = b[cur].ne[0];
    const TensorId convCache = rsCache(g, il, true);
    const std::int64_t dConv = b[convCache].ne[0] / embd;

    // {n_embd, n_tokens} -> {n_embd, n_seq_tokens, n_seqs}, projected to B, C and x: three equal
    // chunks of each row, as views.
    cur = b.reshape(cur, {embd, split.seqTokens, split.seqs, 1});
    const TensorId bcx = g.project(g.blockWeight(il, "shortconv.in_proj.weight"), cur);
    const GraphBuilder::Shape bcxNe = b[bcx].ne;
    const std::uint64_t bcxNb1 = b[bcx].nb[1];
    const std::uint64_t bcxNb2 = b[bcx].nb[2];
    const std::int64_t chunk = bcxNe[0] / 3;
    const auto chunkView = [&](std::int64_t index) {
        return b.view3d(bcx, {chunk, bcxNe[1], bcxNe[2], 1}, bcxNb1, bcxNb2,
                        static_cast<std::uint64_t>(index * chunk) * kF32Bytes);
    };
    const TensorId B = chunkView(0);
    const TensorId C = chunkView(1);
    const TensorId x = chunkView(2);
    const TensorId bx = b.transpose(b.mul(B, x));

    // The state (build_rs with plain rows) as [d_conv, n_embd, n_seqs] before the ubatch's B*x; the
    // last d_conv columns are the new state, copied back into the ubatch's cells, which b11669 (the
    // dumps: cpu_lfm2_l4_np3_faoff) sees as [n_embd_r, n_seqs] rows, as in Mamba-2.
    TensorId conv = buildRs(g, input, convCache);
    conv = b.reshape(conv, {dConv, embd, split.seqs, 1});
    const TensorId convX = b.concat(conv, bx, 0);
    storeConvState(b, convX, convCache, dConv + 1, embd, split, true);

    const TensorId convOut = b.ssmConv(convX, g.blockWeight(il, "shortconv.conv.weight"));
    TensorId y = b.mul(C, convOut);
    y = g.project(g.blockWeight(il, "shortconv.out_proj.weight"), y);
    return b.reshape(y, {b[y].ne[0], split.seqTokens * split.seqs, 1, 1});
}

} // namespace llamafit::graph

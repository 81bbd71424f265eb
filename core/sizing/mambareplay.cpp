// Mamba-1 and Mamba-2 blocks (src/models/mamba-base.cpp), the graph start every replay shares and
// the pieces the GPU replays share (a gated FFN). See recurrentreplay.h for the allocation rules.
#include "core/sizing/recurrentreplay.h"

namespace llamafit {

using Block = AllocatorReplay::Block;

// The graph start of b11669 before the first block (read from its allocation plan): inp_tokens and
// inp_mixed_tokens (i32), inp_mixed_embd (n_embd per token, held for the whole graph), a slot of
// n_embd floats + 8 bytes per token the first norm reuses, the graph inputs (masks, positions;
// computebuffer.cpp adds them), the token embeddings (the residual), then the GET_ROWS / DUP pair
// of the mixed-embedding path: the first is freed, the second stays (a SET_ROWS view nobody reads).
// So the first block finds two free slots of n_embd floats per token.
Block replayGraphStart(RecurrentReplay& r, std::uint64_t embd) {
    const std::uint64_t slotBytes = RecurrentReplay::kF32 * embd * r.tokens;
    r.alloc.allocate(8 * r.tokens);
    r.alloc.allocate(slotBytes);
    const Block first = r.alloc.allocate(slotBytes + 8 * r.tokens);
    const Block residual = r.alloc.allocate(slotBytes);
    const Block second = r.alloc.allocate(slotBytes);
    r.alloc.allocate(slotBytes);
    r.drop(first, second);
    return residual;
}

// Falcon-H1 (src/models/falcon-h1.cpp): the attention of the layer runs first and its output
// (n_head * head_dim per token) waits in a hole until the SSM output is added.
void replayParallelAttention(RecurrentReplay& r, const RecurrentBlockShape& s) {
    const std::uint64_t t = r.tokens;
    const Block norm = r.take(s.embd * t);
    const Block q = r.take(s.parallelQueryValues * t);
    const Block qRope = r.take(s.parallelQueryValues * t);
    r.drop(q);
    const Block v = r.take(s.parallelKvValues * t);
    const Block k = r.take(s.parallelKvValues * t);
    r.drop(norm);
    const Block kRope = r.take(s.parallelKvValues * t);
    r.drop(k, kRope, v);
    r.take(s.parallelQueryValues * t); // flash-attention output, alive past the SSM
    r.drop(qRope);
}

// src/models/mamba-base.cpp build_mamba_layer, s.layers times (a plain Mamba stacks nothing
// else between them).
void replayMamba1(RecurrentReplay& r, const RecurrentBlockShape& s) {
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t convStates = (s.convKernel - 1) * di;
    Block convRows = r.take(convStates * r.seqs); // build_rs: this layer's conv states
    for (std::uint32_t layer = 0; layer < s.layers; ++layer) {
        const Block norm = r.take(s.embd * t);
        const Block xz = r.take(2 * di * t); // ssm_in
        r.drop(norm);
        const Block convX = r.take(di * (t / r.seqs + s.convKernel - 1) * r.seqs); // concat(state, x^T)
        r.drop(convRows);
        const Block x = r.take(di * t); // ssm_conv; bias add and silu in place
        r.drop(convX);
        const Block xDb = r.take((s.dtRank + 2 * s.state) * t); // ssm_x: dt, B, C
        Block y;
        if (s.normedDtBc) {
            // Jamba: RMS norms on dt, B and C.
            const Block dtNorm = r.take(s.dtRank * t);
            const Block dt = r.take(di * t); // ssm_dt, bias in place
            r.drop(dtNorm);
            const Block b = r.take(s.state * t);
            const Block c = r.take(s.state * t);
            y = r.take(di * t + s.state * di * r.seqs); // ssm_scan: y and the final states
            r.drop(dt, xDb, b, c);
        } else {
            const Block dtRows = r.take(s.dtRank * t); // cont(dt)
            const Block dt = r.take(di * t);           // ssm_dt, bias in place
            r.drop(dtRows);
            y = r.take(di * t + s.state * di * r.seqs);
            r.drop(dt, xDb);
        }
        // build_rs: b11669 gathers n_seq_max - 1 further state rows and copies them back.
        r.drop(r.take(s.state * di * (r.seqs - 1)));
        convRows = r.take(convStates * r.seqs); // the next layer's conv states
        const Block z = r.take(di * t);         // cont(z)
        r.drop(xz);
        const Block yD = r.take(di * t); // x * D; y + x * D in place
        r.drop(x, y);
        const Block gated = r.take(di * t); // swiglu(z, y)
        r.drop(z, yD);
        const Block out = r.take(s.embd * t); // ssm_out
        r.drop(gated);
        // The residual add reads ssm_out through a reshape, so it goes in place into the residual.
        r.drop(out);
    }
}

// src/models/mamba-base.cpp build_mamba2_layer, s.layers times.
void replayMamba2(RecurrentReplay& r, const RecurrentBlockShape& s, Block residual) {
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t conv = di + 2 * s.groups * s.state;
    const std::uint64_t convStates = (s.convKernel - 1) * conv;
    const std::uint64_t ssmState = s.state * di;
    Block convRows = r.take(convStates * r.seqs); // build_rs: this layer's conv states
    for (std::uint32_t layer = 0; layer < s.layers; ++layer) {
        const Block norm = r.take(s.embd * t);
        const Block zxBCdt = r.take((2 * di + 2 * s.groups * s.state + s.heads) * t); // ssm_in
        r.drop(norm);
        const Block convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs); // concat(state, xBC^T)
        r.drop(convRows);
        const Block xBC = r.take(conv * t); // ssm_conv; bias add and silu in place
        r.drop(convX);
        const Block dt = r.take(s.heads * t);               // cont(dt); bias in place
        const Block y = r.take(di * t + ssmState * r.seqs); // ssm_scan: y and the final states
        r.drop(dt);
        r.drop(r.take(ssmState * (r.seqs - 1))); // build_rs: the other slots' states
        convRows = r.take(convStates * r.seqs);  // the next layer's conv states
        residual = replayMamba2Output(r, s, zxBCdt, xBC, y, residual);
    }
}

Block replayMamba2Output(RecurrentReplay& r, const RecurrentBlockShape& s, Block zxBCdt, Block xBC, Block y,
                         Block residual) {
    const std::uint64_t t = r.tokens;
    const Block z = r.take(s.inner * t); // cont(z)
    r.drop(zxBCdt);
    const Block yD = r.take(s.inner * t);
    r.drop(xBC, y);
    const Block gated = r.take(s.inner * t);
    r.drop(z, yD);
    const Block normed = r.take(s.inner * t);
    r.drop(gated);
    const Block out = r.take(s.embd * t);
    r.drop(normed);
    // The residual add reads ssm_out directly: in place into it, and the old residual dies.
    r.drop(residual);
    return out;
}

Block replayGatedFeedForward(RecurrentReplay& r, std::uint64_t embd, std::uint64_t feedForward, Block input,
                             const FeedForwardCopies& copies, const std::function<void()>& withDownWeight) {
    const Block gate = r.product(copies.gate, feedForward);
    const Block up = r.product(copies.up, feedForward);
    r.drop(input);
    const Block glu = r.take(feedForward * r.tokens);
    r.drop(gate, up);
    const Block downWeight = r.alloc.allocate(copies.down);
    if (withDownWeight) {
        withDownWeight();
    }
    const Block out = r.take(embd * r.tokens);
    r.alloc.release(downWeight);
    r.drop(glu);
    return out;
}

} // namespace llamafit

// Gated delta net blocks of Qwen3.5 (src/models/qwen35.cpp, qwen35moe.cpp) and Qwen3-Next
// (src/models/qwen3next.cpp) with b11669's fused GATED_DELTA_NET op. See recurrentreplay.h for
// the allocation rules the sequences follow.
#include "core/sizing/recurrentreplay.h"

namespace llamafit {
namespace {

using Block = AllocatorReplay::Block;

// What the convolution leaves for the delta-net op.
struct ConvolvedInputs {
    Block states;   // the slots' recurrent states (get_rows), read by the op
    Block convOut;  // ssm_conv of q, k, v (silu in place); v is a view of it
    Block attnNorm; // the block input, read again by a later projection
};

// The fused op, then the gated RMS norm of its output with silu(z) and the output projection.
// `dropBeforeZ` dies when z is projected (Qwen3.5: the block input; Qwen3-Next: the qkvz output
// z is a view of).
void opAndOutput(RecurrentReplay& r, const RecurrentBlockShape& s, Block q, Block k, Block gate, Block beta,
                 const ConvolvedInputs& in, Block dropBeforeZ) {
    const std::uint64_t t = r.tokens;
    // y and the states: the final one per slot, and with MTP drafting (n_rs_seq > 0) also those
    // after each of the last n_rs_seq tokens (src/models/delta-net-base.cpp, b11669's fused op).
    const Block out = r.take(s.inner * t + s.state * s.inner * r.stateRows);
    r.drop(q, k, in.convOut, gate, beta, in.states);
    const Block normed = r.take(s.inner * t); // RMS norm of y, weight in place
    r.drop(out);
    const Block z = r.take(s.inner * t);
    r.drop(dropBeforeZ);
    const Block zSilu = r.take(s.inner * t); // the product goes in place into `normed`
    r.drop(z, zSilu);
    r.take(s.embd * t); // ssm_out
    r.drop(normed);
}

// Both builders up to the convolution: concat(conv_state, qkv^T) with one state per slot, the
// slots' delta-net states, ssm_conv.
ConvolvedInputs convolve(RecurrentReplay& r, const RecurrentBlockShape& s, Block attnNorm, Block convRows,
                         Block qkv) {
    const std::uint64_t conv = s.inner + 2 * s.groups * s.state;
    const Block convX = r.take(conv * (r.tokens / r.seqs + s.convKernel - 1) * r.seqs);
    r.drop(qkv, convRows);
    ConvolvedInputs in;
    in.attnNorm = attnNorm;
    in.states = r.take(s.state * s.inner * r.seqs);
    in.convOut = r.take(conv * r.tokens);
    r.drop(convX);
    return in;
}

} // namespace

void replayDeltaNet(RecurrentReplay& r, const RecurrentBlockShape& s) {
    const std::uint64_t t = r.tokens;
    const std::uint64_t conv = s.inner + 2 * s.groups * s.state;
    const Block norm = r.take(s.embd * t); // attn_norm, read again by the z projection
    const Block convRows = r.take((s.convKernel - 1) * conv * r.seqs);
    const Block qkv = r.take(conv * t); // attn_qkv
    const ConvolvedInputs in = convolve(r, s, norm, convRows, qkv);
    const Block q = r.take(s.groups * s.state * t); // l2 norm (scale in place)
    const Block k = r.take(s.groups * s.state * t);
    const Block alpha = r.take(s.heads * t); // ssm_alpha; + dt bias, softplus, * A in place
    const Block gate = r.take(s.heads * t);
    r.drop(alpha);
    const Block betaRaw = r.take(s.heads * t); // ssm_beta, then sigmoid (reshaped: a new tensor)
    const Block beta = r.take(s.heads * t);
    r.drop(betaRaw);
    opAndOutput(r, s, q, k, gate, beta, in, norm);
}

void replayDeltaNetFusedQkvz(RecurrentReplay& r, const RecurrentBlockShape& s) {
    const std::uint64_t t = r.tokens;
    const std::uint64_t qk = s.groups * s.state;
    const std::uint64_t conv = s.inner + 2 * qk;
    const Block norm = r.take(s.embd * t); // attn_norm, read again by the ba projection
    const Block convRows = r.take((s.convKernel - 1) * conv * r.seqs);
    const Block qkvz = r.take((2 * qk + 2 * s.inner) * t); // ssm_in; z stays a view of it
    const Block qFlat = r.take(qk * t);
    const Block kFlat = r.take(qk * t);
    const Block qk2 = r.take(2 * qk * t);
    r.drop(qFlat, kFlat);
    const Block vFlat = r.take(s.inner * t);
    const Block qkv = r.take(conv * t);
    r.drop(qk2, vFlat);
    const ConvolvedInputs in = convolve(r, s, norm, convRows, qkv);
    // q and k are l2-normed and repeated from the key heads to the value heads.
    const Block qNorm = r.take(qk * t);
    const Block q = r.take(s.state * s.heads * t);
    r.drop(qNorm);
    const Block kNorm = r.take(qk * t);
    const Block k = r.take(s.state * s.heads * t);
    r.drop(kNorm);
    const Block ba = r.take(2 * s.heads * t); // ssm_ba
    r.drop(norm);
    const Block gate = r.take(s.heads * t); // cont(a); + dt bias, softplus, * A in place
    const Block beta = r.take(s.heads * t); // sigmoid(b)
    r.drop(ba);
    opAndOutput(r, s, q, k, gate, beta, in, qkvz);
}

} // namespace llamafit

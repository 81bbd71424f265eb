// RWKV-7 time mix and channel mix (src/models/rwkv7.cpp, rwkv7-base.cpp), two layers: the
// first normalises the token embeddings and keeps v_first for the whole graph, the second mixes
// its value with v_first; the second peaks higher. See recurrentreplay.h for the allocation rules.
#include "core/sizing/recurrentreplay.h"

namespace llamafit {

using Block = AllocatorReplay::Block;

void replayRwkv7(RecurrentReplay& r, const RecurrentBlockShape& s, Block embeddings) {
    const std::uint64_t t = r.tokens;
    const std::uint64_t e = s.embd;
    const std::uint64_t x = e * t; // one n_embd-wide activation
    const std::uint64_t wkvState = e * s.headSize;
    Block shiftRows = r.take(2 * e * r.seqs);    // build_rwkv_token_shift_load: 2 rows per slot
    Block stateRows = r.take(wkvState * r.seqs); // wkv states of the slots
    Block residual = r.take(x);                  // token_embd_norm (layer norm, weight and bias in place)
    r.drop(embeddings);
    for (int layer = 0; layer < 2; ++layer) {
        const Block attnNorm = r.take(x);
        const Block shifted = r.take(x);    // concat(shift state, x[:-1]); x_prev - x in place
        const Block lerped = r.take(6 * x); // repeat to the 6 fused lerps (mul, add in place)
        r.drop(shifted);
        const Block receptance = r.take(x);
        const Block w1 = r.take(s.decayLora * t);
        const Block w = r.take(x); // decay: tanh lora, sigmoid, scale, exp in place
        r.drop(w1);
        const Block k = r.take(x);
        const Block a1 = r.take(s.iclrLora * t);
        const Block a = r.take(x); // in-context learning rate: lora, sigmoid in place
        r.drop(a1);
        const Block kA = r.take(x);    // k * k_a
        const Block mixed = r.take(x); // a * (k * k_a); sub, add to k in place
        r.drop(kA);
        Block v = r.take(x);
        if (layer > 0) {
            const Block diff = r.take(x); // v_first - v
            const Block v1 = r.take(s.valueLora * t);
            const Block mix = r.take(x); // sigmoid(lora); diff * mix in place
            r.drop(v1);
            r.drop(mix, diff); // v + diff in place into v
        }
        const Block kNorm = r.take(x); // l2_norm(k * k_k): k * k_k is in place in k
        r.drop(k);
        const Block negKk = r.take(x);
        r.drop(a);                                       // kk * a in place into kNorm
        const Block wkv = r.take(x + wkvState * r.seqs); // RWKV_WKV7: output and final states
        r.drop(w, negKk, kNorm, stateRows);
        const Block groupNorm = r.take(x);
        r.drop(wkv);
        const Block out = r.take(x); // weight (new layout), bias in place
        r.drop(groupNorm);
        const Block rk = r.take(x); // k * r (reshaped to heads), * r_k in place
        r.drop(mixed, receptance);
        const Block rowSums = r.take(e / s.headSize * t);
        r.drop(rk);
        const Block bonus = r.take(x); // v * sum; added to out in place
        r.drop(rowSums);
        if (layer > 0) {
            r.drop(v); // layer 0's v is v_first: alive for the whole graph
        }
        r.drop(bonus);
        const Block g1 = r.take(s.gateLora * t);
        r.drop(lerped);
        const Block g2 = r.take(x); // sigmoid lora; out * g in place
        r.drop(g1);
        r.drop(g2);
        const Block projected = r.take(x); // time_mix_output
        r.drop(out);
        const Block ffnInput = r.take(x); // the residual add reads views: no in place
        r.drop(projected, residual);
        const Block ffnNorm = r.take(x);
        const Block shiftState = r.take(2 * e); // concat of the last tokens, stored as the new state
        r.drop(attnNorm, shiftState);
        const Block nextShiftRows = r.take(2 * e * r.seqs); // the next layer's states, loaded here
        const Block nextStateRows = r.take(wkvState * r.seqs);
        const Block ffnShifted = r.take(x);
        r.drop(shiftRows);
        const Block ffnLerp = r.take(x); // x_prev - x reads a view: a new tensor; mul, add in place
        r.drop(ffnShifted, ffnNorm);
        const Block up = r.take(s.feedForward * t); // channel_mix_key; relu, sqr in place
        r.drop(ffnLerp);
        residual = r.take(x); // channel_mix_value; + ffn input in place: the layer output
        r.drop(up, ffnInput);
        shiftRows = nextShiftRows;
        stateRows = nextStateRows;
    }
}

} // namespace llamafit

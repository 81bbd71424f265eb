// The sequence below was read from Vulkan0's plan of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh rwkv7_ngl_all_np1_faon). The rules it follows are
// ggml-alloc's (recurrentreplay.h): the norms' weight and bias, the token shift's SUB, the activations,
// the gating MULs and the lerps' ADDs run in place.
#include "core/sizing/rwkvondevice.h"

#include "core/sizing/recurrentreplay.h"

namespace llamafit {

std::uint64_t rwkv7DeviceComputeBytes(const RecurrentBlockShape& s, std::uint32_t blocks,
                                      std::uint32_t ubatchTokens, std::uint32_t sequences,
                                      std::uint32_t outputs) {
    if (s.kind != RecurrentBlockKind::Rwkv7 || blocks == 0 || ubatchTokens == 0 || s.headSize == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t row = s.embd * t;                      // one n_embd row per token
    const std::uint64_t states = s.headSize * s.embd * r.seqs; // the wkv states' rows
    const std::uint64_t shifts = 2 * s.embd * r.seqs;          // the token-shift states' rows
    const std::uint64_t heads = s.embd / s.headSize;

    Block outputIds{};
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd,
        [&] {
            r.alloc.allocate(4 * r.seqs); /* rs_s_copy */
        },
        [&] { outputIds = r.alloc.allocate(4 * std::uint64_t{outputs}); });
    r.drop(start.mixedRows);
    r.alloc.release(start.slots);

    Block residual = r.take(row); // ln0 over the embeddings, which die
    r.drop(start.residual);
    Block shiftRows = r.take(shifts);
    Block stateRows = r.take(states);
    Block vFirst{};
    for (std::uint32_t b = 0; b < blocks; ++b) {
        const bool first = b == 0;
        const bool last = b + 1 == blocks;
        // The time mix: the norm, the token shift, the six lerps (one REPEAT), r, the decay, key and
        // iclr LoRAs, the value (mixed with v_first after the first block), then the wkv7 op.
        const Block norm = r.take(row);
        const Block shifted = r.take(row);
        const Block lerps = r.take(6 * row);
        r.drop(shifted);
        const Block receptance = r.take(row);
        const Block decayLora = r.take(s.decayLora * t);
        const Block key = r.take(row);
        const Block iclrLora = r.take(s.iclrLora * t);
        const Block iclr = r.take(row);
        r.drop(iclrLora);
        const Block kkScaled = r.take(row);
        const Block decay = r.take(row);
        r.drop(decayLora);
        const Block keyMixed = r.take(row);
        r.drop(kkScaled);
        const Block value = r.take(row);
        Block valueMix{};
        if (first) {
            vFirst = value;
        } else {
            const Block difference = last ? Block{} : r.take(row); // v_first - v; in place on v_first last
            const Block valueLora = r.take(s.valueLora * t);
            const Block valueGate = r.take(row);
            r.drop(valueLora);
            r.drop(valueGate);
            r.drop(last ? vFirst : difference);
            valueMix = r.take(row);
        }
        const Block normed = r.take(row); // l2 norm of kk
        r.drop(key);
        const Block negated = r.take(row);
        if (first) {
            valueMix = r.take(row);
        }
        r.drop(iclr);
        const Block wkv = r.take(row + states);
        r.drop(receptance, decay, keyMixed, negated, normed);
        r.drop(stateRows);
        const Block sums = r.take(heads * t);
        r.drop(valueMix);
        Block groupNorm{};
        Block gated{};
        if (first) {
            const Block gateLora = r.take(s.gateLora * t);
            r.drop(lerps);
            groupNorm = r.take(row);
            r.drop(wkv);
            const Block bonus = r.take(row);
            r.drop(sums);
            gated = r.take(row);
            r.drop(groupNorm);
            const Block gate = r.take(row);
            r.drop(gateLora, bonus, gate);
        } else {
            groupNorm = r.take(row);
            r.drop(wkv);
            const Block bonus = r.take(row);
            r.drop(value, sums);
            const Block gateLora = r.take(s.gateLora * t);
            r.drop(lerps);
            gated = r.take(row);
            r.drop(groupNorm);
            const Block gate = r.take(row);
            r.drop(gateLora, bonus, gate);
        }
        const Block out = r.take(row);
        r.drop(gated);
        const Block ffnInput = r.take(row);
        r.drop(out, residual);

        // The channel mix, which takes the next block's shift and state rows.
        const Block nextShifts = last ? Block{} : r.take(shifts);
        const Block ffnNorm = r.take(row);
        const Block nextStates = last ? Block{} : r.take(states);
        const Block newShifts = r.take(shifts);
        r.drop(norm);
        if (last) {
            const Block concat = r.take(row);
            r.drop(shiftRows, ffnNorm, ffnInput, newShifts, concat);
            r.alloc.release(outputIds);
            break;
        }
        r.drop(newShifts);
        const Block concat = r.take(row);
        r.drop(shiftRows);
        const Block mixed = r.take(row);
        r.drop(concat, ffnNorm);
        const Block hidden = r.take(s.feedForward * t); // relu and square in place
        r.drop(mixed);
        const Block channelOut = r.take(row);
        r.drop(hidden, ffnInput);
        residual = channelOut;
        shiftRows = nextShifts;
        stateRows = nextStates;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

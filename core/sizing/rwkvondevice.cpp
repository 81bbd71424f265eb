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

std::optional<Rwkv6Shape> rwkv6Shape(const ModelInfo& model) {
    if (model.architecture != "rwkv6" || model.layers.empty() || model.embeddingLength == 0) {
        return std::nullopt;
    }
    const TensorSummary* lerp = model.blockTensor(0, "time_mix_w1.weight");
    const TensorSummary* decay = model.blockTensor(0, "time_mix_decay_w1.weight");
    const TensorSummary* key = model.blockTensor(0, "channel_mix_key.weight");
    if (lerp == nullptr || decay == nullptr || key == nullptr) {
        return std::nullopt;
    }
    Rwkv6Shape shape;
    shape.embd = model.embeddingLength;
    shape.headSize = model.layers.front().recurrentStateWidth / model.embeddingLength; // n_embd * head_size
    shape.lerpLora = lerp->rows();
    shape.decayLora = decay->rows();
    shape.feedForward = key->rows();
    shape.bonus = model.blockTensorBytes(0, "time_mix_first.weight");
    shape.blocks = model.trunkLayerCount();
    if (shape.headSize == 0 || shape.feedForward == 0) {
        return std::nullopt;
    }
    return shape;
}

// Read from rwkv6_l8_ngl_all_np1_faon's plan (sequence.py).
std::uint64_t rwkv6DeviceComputeBytes(const Rwkv6Shape& s, std::uint32_t ubatchTokens,
                                      std::uint32_t sequences, std::uint32_t outputs) {
    if (s.blocks == 0 || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t row = s.embd * t;
    const std::uint64_t states = s.headSize * s.embd * r.seqs;
    const std::uint64_t shifts = 2 * s.embd * r.seqs;

    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd,
        [&] {
            r.alloc.allocate(4 * r.seqs); /* rs_s_copy */
        },
        [] {});
    r.drop(start.mixedRows);
    r.alloc.release(start.slots);
    Block shiftRows = r.take(shifts);
    Block stateRows = r.take(states);
    Block residual = r.take(row); // ln0 over the embeddings, which die
    r.drop(start.residual);
    Block outputIds{};
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
        const bool last = b + 1 == s.blocks;
        // The time mix: the norm, the token shift, the lerps' LoRA (made contiguous) and its five
        // outputs, r, k, v, the decay LoRA, then wkv6 with u copied in.
        const Block norm = r.take(row);
        const Block shifted = r.take(row);
        const Block mixed = r.take(row);
        const Block lora = r.take(s.lerpLora * t);
        r.drop(mixed);
        const Block loraRows = r.take(s.lerpLora * t);
        r.drop(lora);
        const Block lerps = r.take(5 * row);
        r.drop(loraRows, shifted);
        const Block receptance = r.take(row);
        const Block key = r.take(row);
        const Block value = r.take(row);
        const Block decayLora = r.take(s.decayLora * t);
        const Block decay = r.take(row);
        r.drop(decayLora);
        const Block bonus = r.alloc.allocate(s.bonus);
        if (last) {
            outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
        }
        const Block wkv = r.take(row + states);
        r.drop(receptance, key, value);
        r.alloc.release(bonus);
        r.drop(decay, stateRows);
        const Block groupNorm = r.take(row);
        r.drop(wkv);
        const Block gate = r.take(row);
        r.drop(lerps);
        const Block gated = r.take(row);
        r.drop(groupNorm, gate);
        const Block nextShifts = last ? Block{} : r.take(shifts);
        const Block out = r.take(row);
        r.drop(gated);
        const Block ffnInput = r.take(row);
        r.drop(out, residual);
        if (last) {
            r.drop(ffnInput, norm, shiftRows); // the output rows only
            r.alloc.release(outputIds);
            break;
        }
        // The channel mix, which takes the next block's state rows.
        const Block ffnNorm = r.take(row);
        const Block nextStates = r.take(states);
        const Block newShifts = r.take(shifts);
        r.drop(norm, newShifts);
        const Block concat = r.take(row);
        r.drop(shiftRows);
        const Block difference = r.take(row);
        r.drop(concat);
        const Block keyMix = r.take(row);
        r.drop(ffnNorm);
        const Block channelReceptance = r.take(row); // its sigmoid and the value's MUL and the ADD in place
        r.drop(keyMix);
        const Block hidden = r.take(s.feedForward * t);
        r.drop(difference);
        const Block channelValue = r.take(row);
        r.drop(hidden, channelValue, ffnInput);
        residual = channelReceptance;
        shiftRows = nextShifts;
        stateRows = nextStates;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

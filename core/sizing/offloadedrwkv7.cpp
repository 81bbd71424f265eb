// The sequence below was read from the plan of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh rwkv7_ngl0_np1); the rules are recurrentreplay.h's.
#include "core/sizing/offloadedrwkv7.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>
#include <string_view>

namespace llamafit {

std::optional<OffloadedRwkv7> offloadedRwkv7(const ModelInfo& model, const LayerPlacement& layers) {
    const RecurrentBlockShape shape = recurrentBlockShape(model);
    const std::size_t blocks = model.trunkLayerCount();
    if (model.architecture != "rwkv7" || shape.kind != RecurrentBlockKind::Rwkv7 || blocks < 2 ||
        layers.layerDevice.size() < blocks ||
        std::any_of(layers.layerDevice.begin(),
                    layers.layerDevice.begin() + static_cast<std::ptrdiff_t>(blocks),
                    [](int device) { return device != kHostDevice; })) {
        return std::nullopt; // a partial -ngl: not read from a plan
    }
    OffloadedRwkv7 split;
    split.shape = shape;
    const auto named = [&](std::string_view name) {
        const auto tensor = std::find_if(model.tensors.begin(), model.tensors.end(),
                                         [&](const TensorSummary& t) { return t.name == name; });
        return tensor != model.tensors.end() ? tensor->bytes : 0;
    };
    split.embeddingNorm = named("token_embd_norm.weight");
    split.embeddingNormBias = named("token_embd_norm.bias");
    for (std::size_t il = 0; il < blocks; ++il) {
        const auto bytes = [&](std::string_view name) { return model.blockTensorBytes(il, name); };
        Rwkv7BlockWeights w;
        w.norm = bytes("attn_norm.weight");
        w.normBias = bytes("attn_norm.bias");
        w.channelNorm = bytes("attn_norm_2.weight");
        w.channelNormBias = bytes("attn_norm_2.bias");
        w.lerps = bytes("time_mix_lerp_fused.weight");
        w.receptance = bytes("time_mix_receptance.weight");
        w.decayDown = bytes("time_mix_w1.weight");
        w.decayUp = bytes("time_mix_w2.weight");
        w.decayBias = bytes("time_mix_w0.weight");
        w.key = bytes("time_mix_key.weight");
        w.iclrDown = bytes("time_mix_a1.weight");
        w.iclrUp = bytes("time_mix_a2.weight");
        w.iclrBias = bytes("time_mix_a0.weight");
        w.keyIclr = bytes("time_mix_k_a.weight");
        w.value = bytes("time_mix_value.weight");
        w.valueDown = bytes("time_mix_v1.weight");
        w.valueUp = bytes("time_mix_v2.weight");
        w.valueBias = bytes("time_mix_v0.weight");
        w.keyNormScale = bytes("time_mix_k_k.weight");
        w.groupNorm = bytes("time_mix_ln.weight");
        w.groupNormBias = bytes("time_mix_ln.bias");
        w.bonus = bytes("time_mix_r_k.weight");
        w.gateDown = bytes("time_mix_g1.weight");
        w.gateUp = bytes("time_mix_g2.weight");
        w.output = bytes("time_mix_output.weight");
        w.channelLerp = bytes("channel_mix_lerp_k.weight");
        w.channelKey = bytes("channel_mix_key.weight");
        w.channelValue = bytes("channel_mix_value.weight");
        if (w.receptance == 0 || w.key == 0 || w.value == 0 || w.output == 0 || w.channelKey == 0) {
            return std::nullopt;
        }
        split.blocks.push_back(w);
    }
    return split;
}

std::uint64_t offloadedRwkv7Bytes(const OffloadedRwkv7& split, std::uint32_t ubatchTokens,
                                  std::uint32_t sequences) {
    const RecurrentBlockShape& s = split.shape;
    if (s.kind != RecurrentBlockKind::Rwkv7 || split.blocks.size() < 2 || ubatchTokens == 0 ||
        s.headSize == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t row = s.embd * t;                      // one n_embd row per token
    const std::uint64_t states = s.headSize * s.embd * r.seqs; // a block's wkv state rows
    const std::uint64_t shift = s.embd * r.seqs;               // one token-shift state row per slot
    const std::uint64_t heads = s.embd / s.headSize;
    // A weight copied in for its one op (recurrentreplay.h).
    const auto weight = [&](std::uint64_t bytes) { return r.alloc.allocate(bytes); };

    // ln0 over the looked-up embeddings, its weight and bias in place.
    const Block embeddings = r.take(row);
    Block residual = r.take(row);
    r.drop(embeddings);
    r.passing(split.embeddingNorm);
    r.passing(split.embeddingNormBias);
    Block vFirst{};
    for (std::size_t b = 0; b < split.blocks.size(); ++b) {
        const Rwkv7BlockWeights& w = split.blocks[b];
        const bool first = b == 0;
        const bool last = b + 1 == split.blocks.size();
        // The time mix: the norm, the token shift over the copied state row, the six lerps (one REPEAT).
        const Block norm = r.take(row);
        r.passing(w.norm);
        const Block normBias = weight(w.normBias);
        const Block shiftRow = r.take(shift);
        r.alloc.release(normBias);
        const Block shifted = r.take(row);
        r.drop(shiftRow);
        const Block lerps = r.take(6 * row);
        r.drop(shifted);
        r.passing(w.lerps);
        const Block receptance = r.product(w.receptance, s.embd);
        const Block decayLora = r.product(w.decayDown, s.decayLora);
        const Block decay = r.product(w.decayUp, s.embd);
        r.drop(decayLora);
        r.passing(w.decayBias);
        const Block key = r.product(w.key, s.embd);
        const Block iclrLora = r.product(w.iclrDown, s.iclrLora);
        const Block iclr = r.product(w.iclrUp, s.embd);
        r.drop(iclrLora);
        r.passing(w.iclrBias);
        const Block keyIclrWeight = weight(w.keyIclr);
        const Block iclrScaled = r.take(row); // (a - 1) * k_a
        r.alloc.release(keyIclrWeight);
        const Block keyMixed = r.take(row);
        r.drop(iclrScaled);
        const Block value = r.product(w.value, s.embd);
        if (first) {
            vFirst = value;
        } else {
            // The value residual: v += (v_first - v) * sigmoid(v0 + LoRA); the last block's in place on
            // v_first.
            const Block difference = last ? Block{} : r.take(row);
            const Block valueLora = r.product(w.valueDown, s.valueLora);
            const Block valueGate = r.product(w.valueUp, s.embd);
            r.drop(valueLora);
            r.passing(w.valueBias);
            r.drop(valueGate);
            r.drop(last ? vFirst : difference);
        }
        const Block keyNormWeight = weight(w.keyNormScale);
        const Block stateRows = r.take(states); // the block's wkv state, copied in
        r.alloc.release(keyNormWeight);
        const Block normed = r.take(row); // l2 norm of kk = k * k_k, in place on k
        r.drop(key);
        const Block negated = r.take(row);
        r.drop(iclr);
        const Block wkv = r.take(row + states);
        r.drop(decay, negated, normed); // kk * a ran in place on the norm
        r.drop(stateRows);
        const Block groupNormWeight = weight(w.groupNorm);
        const Block groupNorm = r.take(row);
        r.drop(wkv);
        const Block scaled = r.take(row);
        r.drop(groupNorm);
        r.alloc.release(groupNormWeight);
        const Block groupNormBias = weight(w.groupNormBias);
        const Block bonusWeight = weight(w.bonus);
        r.alloc.release(groupNormBias);
        const Block rk = r.take(row); // r * k * r_k
        r.drop(keyMixed, receptance);
        r.alloc.release(bonusWeight);
        const Block sums = r.take(heads * t);
        r.drop(rk);
        const Block bonus = r.take(row); // the sums times v, added into the group norm in place
        if (!first) {
            r.drop(value);
        }
        r.drop(sums, bonus);
        const Block gateLora = r.product(w.gateDown, s.gateLora);
        r.drop(lerps);
        const Block gate = r.product(w.gateUp, s.embd);
        r.drop(gateLora, gate); // the gate multiplies the output in place
        const Block out = r.product(w.output, s.embd);
        r.drop(scaled);
        const Block channelInput = r.take(row); // out + residual
        r.drop(out, residual);

        // The channel mix: the norm, both new token-shift states, the shift over the copied row, the
        // lerp, relu² key and value, added into the residual in place.
        const Block channelNorm = r.take(row);
        r.passing(w.channelNorm);
        r.passing(w.channelNormBias);
        const Block newShifts = r.take(2 * shift);
        r.drop(norm, newShifts);
        if (last) {
            // The output rows' channel mix runs on the CPU.
            r.drop(channelNorm, channelInput);
            break;
        }
        const Block channelShiftRow = r.take(shift);
        const Block channelShifted = r.take(row);
        r.drop(channelShiftRow);
        const Block channelMix = r.take(row);
        r.drop(channelShifted);
        r.passing(w.channelLerp);
        r.drop(channelNorm);
        const Block hidden = r.product(w.channelKey, s.feedForward);
        r.drop(channelMix);
        const Block channelOut = r.product(w.channelValue, s.embd);
        r.drop(hidden, channelInput);
        residual = channelOut;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

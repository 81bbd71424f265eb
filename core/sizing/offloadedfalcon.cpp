// The sequence below was read from the plan of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh falcon_h1_ngl0_np1); the rules are recurrentreplay.h's.
#include "core/sizing/offloadedfalcon.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>
#include <utility>

namespace llamafit {

std::optional<OffloadedFalcon> offloadedFalcon(const ModelInfo& model, const KvPlan& kv,
                                               const LayerPlacement& layers) {
    std::optional<ParallelMambaShape> shape = parallelMambaShape(model, kv, true);
    if (!shape || layers.layerDevice.size() < shape->blocks) {
        return std::nullopt;
    }
    OffloadedFalcon split;
    split.shape = std::move(*shape);
    for (std::size_t il = 0; il < split.shape.blocks; ++il) {
        if (layers.layerDevice[il] != kHostDevice) {
            return std::nullopt; // GPU blocks after host blocks: not read from a plan
        }
        split.hostLayers.push_back(hostLayerWeights(model, il));
    }
    return split;
}

// Read from falcon_h1_ngl0_np1's plan (sequence.py).
std::uint64_t offloadedFalconBytes(const OffloadedFalcon& split, std::uint32_t ubatchTokens,
                                   std::uint32_t sequences, std::uint32_t outputs) {
    const ParallelMambaShape& shape = split.shape;
    const RecurrentBlockShape& s = shape.ssm;
    const std::size_t blocks = split.hostLayers.size();
    if (blocks == 0 || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t conv = di + 2 * s.groups * s.state;
    const std::uint64_t projected = 2 * di + 2 * s.groups * s.state + s.heads; // z, xBC, dt
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);
    const auto weight = [&](std::uint64_t bytes) { return r.alloc.allocate(bytes); };

    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd, [] {}, [] {});
    Block residual = start.residual;
    for (std::size_t b = 0; b < blocks; ++b) {
        const OffloadedLayerWeights& w = split.hostLayers[b];
        const bool last = b + 1 == blocks;
        const Block norm = r.take(s.embd * t);
        if (b == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        const Block normWeight = weight(w.attentionNorm); // ssm_in's norm reads it too
        // Q, V and K, each roped Q and K a new tensor; all three leave for the CPU's flash attention.
        const Block queryWeight = weight(w.query);
        if (b == 0) {
            r.alloc.allocate(4 * t); // inp_pos, at its first use
        }
        const Block q = r.take(s.parallelQueryValues * t);
        r.alloc.release(queryWeight);
        const Block qRoped = r.take(s.parallelQueryValues * t);
        r.drop(q);
        const Block valueWeight = weight(w.value);
        const Block v = r.take(s.parallelKvValues * t);
        r.alloc.release(valueWeight);
        const Block keyWeight = weight(w.key);
        const Block k = r.take(s.parallelKvValues * t);
        r.alloc.release(keyWeight);
        r.drop(norm);
        const Block kRoped = r.take(s.parallelKvValues * t);
        r.drop(k, kRoped, v, qRoped);
        // The SSM: its norm, ssm_in, the conv over the host's conv rows, dt to the CPU's scan.
        const Block inputWeight = weight(w.input);
        const Block hostConvRows = r.take((s.convKernel - 1) * conv * r.seqs);
        const Block ssmNorm = r.take(s.embd * t);
        r.alloc.release(normWeight);
        const Block zxBCdt = r.take(projected * t);
        r.alloc.release(inputWeight);
        r.drop(ssmNorm);
        const Block convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
        r.drop(hostConvRows);
        const Block convWeight = weight(w.conv);
        const Block xBC = r.take(conv * t); // bias and silu in place
        r.drop(convX);
        r.alloc.release(convWeight);
        r.passing(w.convBias);
        const Block dt = r.take(s.heads * t); // cont(dt), bias in place: it leaves for the CPU's scan
        r.passing(w.dtBias);
        r.drop(dt);
        // The attention's output comes back for its projection, which waits through the SSM.
        const Block outputWeight = weight(w.attentionOutput);
        const Block attended = r.take(s.parallelQueryValues * t);
        const Block attentionOut = r.take(s.embd * t);
        r.alloc.release(outputWeight);
        r.drop(attended);
        const Block z = r.take(di * t); // cont(z)
        r.drop(zxBCdt);
        const Block skip = weight(w.skip);
        const Block y = r.take(di * t); // the scan's y, copied back
        const Block xD = r.take(di * t);
        r.drop(xBC);
        r.alloc.release(skip);
        r.drop(xD); // added into y in place
        const Block gated = r.take(di * t);
        r.drop(z, y);
        const Block normed = r.take(di * t);
        r.drop(gated);
        r.passing(w.norm);
        const Block ssmWeight = weight(w.output);
        const Block outputIds = last ? r.alloc.allocate(4 * std::uint64_t{outputs}) : Block{};
        const Block ssmOut = r.take(s.embd * t);
        r.alloc.release(ssmWeight);
        r.drop(normed, ssmOut); // added into the attention's output in place
        r.drop(residual);
        residual = attentionOut;
        if (last) {
            r.drop(r.take(s.embd * rows)); // the FFN runs on the output rows
            r.alloc.release(outputIds);
            break;
        }
        // The gated FFN, each weight copied in.
        const Block ffnNorm = r.take(s.embd * t);
        r.passing(w.feedForwardNorm);
        const Block out =
            replayGatedFeedForward(r, s.embd, shape.feedForward, ffnNorm, {w.gate, w.up, w.down});
        r.drop(residual);
        residual = out;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

// Vulkan0's plan of llama-server 0.7.0 (b11669) on lavapipe for falcon_h1 -ngl all, read with
// scripts/alloc-plan/sequence.py; the rules are recurrentreplay.h's.
#include "core/sizing/parallelmambaondevice.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>

namespace llamafit {

std::optional<ParallelMambaShape> parallelMambaShape(const ModelInfo& model, const KvPlan& kv) {
    const RecurrentBlockShape ssm = recurrentBlockShape(model);
    const std::uint32_t blocks = model.blockCount - model.nextnLayerCount;
    if (model.architecture != "falcon-h1" || ssm.kind != RecurrentBlockKind::Mamba2 ||
        ssm.parallelQueryValues == 0 || kv.caches.size() != 1 || blocks == 0 ||
        model.layers.size() < blocks) {
        return std::nullopt;
    }
    ParallelMambaShape shape;
    shape.ssm = ssm;
    for (std::uint32_t il = 0; il < blocks; ++il) {
        shape.feedForward = std::max<std::uint64_t>(shape.feedForward, model.layers[il].feedForwardLength);
    }
    shape.maskCells = kv.caches.front().cells;
    shape.blocks = blocks;
    return shape;
}

std::uint64_t parallelMambaDeviceBytes(const ParallelMambaShape& shape, std::uint32_t ubatchTokens,
                                       std::uint32_t sequences, std::uint32_t outputs) {
    const RecurrentBlockShape& s = shape.ssm;
    if (shape.blocks == 0 || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t conv = di + 2 * s.groups * s.state;
    const std::uint64_t ssmState = s.state * di;
    // The graph inputs: positions, K and V row indices, the f16 mask, the state-copy ids and two
    // views of them, the output ids.
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd, [] {},
        [&] {
            r.alloc.allocate(4 * t);
            replayCacheInputs(r, shape.maskCells, s.parallelKvValues, true);
            for (int ids = 0; ids < 3; ++ids) {
                r.alloc.allocate(4 * r.seqs);
            }
            r.alloc.allocate(4 * std::uint64_t{outputs});
        });
    Block residual = start.residual;
    for (std::uint32_t b = 0; b < shape.blocks; ++b) {
        const Block norm = r.take(s.embd * t);
        if (b == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        // Attention: Q, V and K projected together, RoPE (new tensors), flash attention.
        const Block q = r.take(s.parallelQueryValues * t);
        const Block v = r.take(s.parallelKvValues * t);
        const Block k = r.take(s.parallelKvValues * t);
        r.drop(norm);
        const Block qRoped = r.take(s.parallelQueryValues * t);
        r.drop(q, v);
        const Block kRoped = r.take(s.parallelKvValues * t);
        r.drop(k, kRoped);
        const Block ssmNorm = r.take(s.embd * t); // the SSM's input norm
        const Block attended = r.take(s.parallelQueryValues * t);
        r.drop(qRoped);
        // Mamba-2 beside it: the attention's output projection waits through the scan.
        const Block convRows = r.take((s.convKernel - 1) * conv * r.seqs);
        const Block zxBCdt = r.take((2 * di + 2 * s.groups * s.state + s.heads) * t);
        r.drop(ssmNorm);
        const Block convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
        r.drop(convRows);
        const Block xBC = r.take(conv * t);
        r.drop(convX);
        const Block dt = r.take(s.heads * t);
        const Block gathered = r.take(ssmState * (r.seqs - 1));
        const Block attentionOut = r.take(s.embd * t);
        r.drop(attended);
        const Block yD = r.take(di * t); // x * D, before the scan; y is added in place
        const Block z = r.take(di * t);  // cont(z)
        r.drop(zxBCdt);
        const Block y = r.take(di * t + ssmState * r.seqs);
        r.drop(dt, xBC, gathered);
        const Block gated = r.take(di * t);
        r.drop(z, yD, y);
        const Block normed = r.take(di * t);
        r.drop(gated);
        const Block ssmOut = r.take(s.embd * t);
        r.drop(normed, ssmOut); // both added in place into the attention's output
        r.drop(residual);
        residual = attentionOut;
        if (b + 1 == shape.blocks) {
            break; // the FFN runs on the output rows
        }
        const Block out = replayGatedFeedForward(r, s.embd, shape.feedForward, r.take(s.embd * t));
        r.drop(residual);
        residual = out;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

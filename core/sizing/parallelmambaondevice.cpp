// Vulkan0's plan of llama-server 0.7.0 (b11669) on lavapipe for falcon_h1 -ngl all, read with
// scripts/alloc-plan/sequence.py; the rules are recurrentreplay.h's.
#include "core/sizing/parallelmambaondevice.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>

namespace llamafit {
namespace {

using Block = AllocatorReplay::Block;

// One block without flash attention (falcon_h1_ngl_all_np1_faoff's plan): KQ (soft_max in place)
// comes before ssm_in, the conv rows before KQV; the SSM's output and the residual are added in
// place into the attention's output, which is returned.
Block replayBlockWithoutFlashAttention(RecurrentReplay& r, const ParallelMambaShape& shape, bool first,
                                       Block norm, Block residual) {
    const RecurrentBlockShape& s = shape.ssm;
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t conv = di + 2 * s.groups * s.state;
    const std::uint64_t ssmState = s.state * di;
    // With several slots ggml-vulkan orders four pairs of nodes the other way round
    // (falcon_h1_ngl_all_c16384_np4_faoff's plan).
    const bool slots = r.seqs > 1;
    const Block q = r.take(s.parallelQueryValues * t);
    const Block v = r.take(s.parallelKvValues * t);
    const Block k = r.take(s.parallelKvValues * t);
    r.drop(norm);
    const Block qRoped = r.take(s.parallelQueryValues * t);
    r.drop(q);
    if (!slots) {
        r.drop(v);
    }
    const Block kRoped = r.take(s.parallelKvValues * t);
    r.drop(k, kRoped);
    if (slots) {
        r.drop(v);
    }
    const Block ssmNorm = slots ? Block{} : r.take(s.embd * t);
    const Block kq = r.take(shape.maskCells * t * shape.heads); // soft_max in place
    r.drop(qRoped);
    const Block ssmNormAfter = slots ? r.take(s.embd * t) : ssmNorm;
    const Block zxBCdt = r.take((2 * di + 2 * s.groups * s.state + s.heads) * t);
    r.drop(ssmNormAfter);
    const Block convRows = slots ? Block{} : r.take((s.convKernel - 1) * conv * r.seqs);
    const Block kqv = r.take(s.parallelQueryValues * t);
    r.drop(kq);
    Block convX{};
    Block attended{};
    if (slots) {
        const Block rows = r.take((s.convKernel - 1) * conv * r.seqs);
        attended = r.take(s.parallelQueryValues * t); // cont(kqv)
        r.drop(kqv);
        convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
        r.drop(rows);
    } else {
        convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
        r.drop(convRows);
        attended = r.take(s.parallelQueryValues * t);
        r.drop(kqv);
    }
    const Block xBC = r.take(conv * t);
    r.drop(convX);
    const Block dt = r.take(s.heads * t);
    // The other slots' states: after the attention's output projection, but in the first block.
    const Block gatheredFirst = !slots || first ? r.take(ssmState * (r.seqs - 1)) : Block{};
    const Block attentionOut = r.take(s.embd * t);
    r.drop(attended);
    const Block gathered = !slots || first ? gatheredFirst : r.take(ssmState * (r.seqs - 1));
    const Block yD = r.take(di * t); // x * D; y is added in place
    const Block y = r.take(di * t + ssmState * r.seqs);
    r.drop(dt, xBC);
    const Block z = r.take(di * t);
    r.drop(zxBCdt, gathered);
    const Block gated = r.take(di * t);
    r.drop(z, yD, y);
    const Block normed = r.take(di * t);
    r.drop(gated);
    const Block ssmOut = r.take(s.embd * t);
    r.drop(normed, ssmOut, residual);
    return attentionOut;
}

} // namespace

std::optional<ParallelMambaShape> parallelMambaShape(const ModelInfo& model, const KvPlan& kv,
                                                     bool flashAttention) {
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
    shape.heads = model.layers.front().headCount;
    shape.valueRow = std::uint64_t{model.layers.front().headCountKv} * model.layers.front().valueHeadDim;
    shape.flashAttention = flashAttention;
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
            replayCacheInputs(r, shape.maskCells, shape.valueRow, shape.flashAttention);
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
        if (!shape.flashAttention) {
            residual = replayBlockWithoutFlashAttention(r, shape, b == 0, norm, residual);
        } else {
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
        }
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

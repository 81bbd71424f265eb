// The sequence below was read tensor by tensor from the Vulkan0 plan of llama-server 0.7.0
// (b11669) on lavapipe: scripts/alloc-plan/run-case.sh mamba_ngl_all, then galloc_replay.py.
// Graph: src/models/mamba.cpp and build_mamba_layer in src/models/mamba-base.cpp.
#include "core/sizing/mambaondevice.h"

#include "core/sizing/recurrentreplay.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>

namespace llamafit {

std::uint64_t mambaOneDeviceComputeBytes(const RecurrentBlockShape& s, std::uint32_t blocks,
                                         std::uint32_t ubatchTokens, std::uint32_t sequences,
                                         std::uint32_t outputs) {
    if (s.kind != RecurrentBlockKind::Mamba1 || blocks == 0 || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);

    // The host's inputs arrive first: the mixed-embedding path's two rows and its slot ids, the
    // state-copy ids, the token embeddings (the residual, added to in place) and the DUP the
    // mixed path keeps alive to the end.
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd,
        [&] {
            r.alloc.allocate(4 * r.seqs); /* rs_s_copy */
        },
        [] {});
    const Block residual = start.residual;

    Block convRows;       // the block's conv states (get_rows), taken during the block before
    Block stateCopyIds{}; // the s_copy view the scan's state rows follow
    for (std::uint32_t block = 0; block < blocks; ++block) {
        const bool last = block + 1 == blocks;
        const Block norm = r.take(s.embd * t); // the weight's MUL in place
        if (block == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        const Block xz = r.take(2 * di * t); // ssm_in
        r.drop(norm);
        if (block == 0) {
            convRows = r.take((s.convKernel - 1) * di * r.seqs);
        }
        const Block convX = r.take(di * (t / r.seqs + s.convKernel - 1) * r.seqs); // concat(states, x^T)
        r.drop(convRows);
        const Block x = r.take(di * t); // ssm_conv; bias add and silu in place
        r.drop(convX);
        const Block xDb = r.take((s.dtRank + 2 * s.state) * t); // ssm_x: dt, B, C
        const Block dtRows = r.take(s.dtRank * t);              // cont(dt)
        const Block dt = r.take(di * t);                        // ssm_dt, bias in place
        r.drop(dtRows);
        r.drop(dt, xDb); // dt, B and C have gone to the host for the scan
        if (block == 0) {
            stateCopyIds = r.alloc.allocate(4 * r.seqs);
        }
        const Block states = r.take(s.state * di * r.seqs); // the scan's copies back: final states
        const Block y = r.take(di * t);                     // ... and y
        if (last) {
            r.alloc.allocate(4 * rows); // out_ids
        }
        const Block gathered = r.take(s.state * di * (r.seqs - 1)); // build_rs: the other slots' rows
        if (last) {
            r.alloc.release(stateCopyIds);
            r.take(s.embd * rows); // the residual's output rows; the residual dies
            r.drop(residual);
        }
        r.drop(gathered);
        const Block z = r.take(di * t); // cont(z)
        r.drop(xz);
        r.drop(x); // x * D in place, then added into y in place
        if (!last) {
            convRows = r.take((s.convKernel - 1) * di * r.seqs); // the next block's conv states
        }
        const Block gated = r.take(di * t); // swiglu(z, y)
        r.drop(z, y, states);
        const Block out = r.take(s.embd * t); // ssm_out
        r.drop(gated);
        r.drop(out); // added into the residual in place
    }
    return r.alloc.peakBytes();
}

std::uint64_t mambaTwoDeviceComputeBytes(const RecurrentBlockShape& s, std::uint32_t blocks,
                                         std::uint32_t ubatchTokens, std::uint32_t sequences) {
    if (s.kind != RecurrentBlockKind::Mamba2 || blocks == 0 || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t conv = di + 2 * s.groups * s.state;
    const std::uint64_t convStates = (s.convKernel - 1) * conv;
    const std::uint64_t ssmState = s.state * di;

    // The graph start: the mixed path's rows and slot ids, the state-copy ids and two views of
    // them, the token embeddings (the residual), the output ids, the DUP.
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd, [&] { r.alloc.allocate(4 * r.seqs); },
        [&] {
            r.alloc.allocate(4 * r.seqs);
            r.alloc.allocate(4 * r.seqs);
            r.alloc.allocate(4);
        });
    Block residual = start.residual;

    Block convRows{};
    for (std::uint32_t block = 0; block < blocks; ++block) {
        const Block norm = r.take(s.embd * t);
        if (block == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        const Block zxBCdt = r.take((2 * di + 2 * s.groups * s.state + s.heads) * t); // ssm_in
        r.drop(norm);
        if (block == 0) {
            convRows = r.take(convStates * r.seqs);
        }
        const Block convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
        r.drop(convRows);
        Block dt;
        Block gathered; // build_rs: the other slots' states
        Block xBC;      // ssm_conv; bias add and silu in place
        if (block == 0) {
            xBC = r.take(conv * t);
            r.drop(convX);
            gathered = r.take(ssmState * (r.seqs - 1));
            dt = r.take(s.heads * t);
        } else {
            dt = r.take(s.heads * t);
            gathered = r.take(ssmState * (r.seqs - 1));
            xBC = r.take(conv * t);
            r.drop(convX);
        }
        const Block y = r.take(di * t + ssmState * r.seqs); // ssm_scan: y and the final states
        r.drop(dt);
        if (block == 0) {
            convRows = r.take(convStates * r.seqs); // the next block's conv states
            r.drop(gathered);
        } else {
            r.drop(gathered);
            convRows = r.take(convStates * r.seqs);
        }
        residual = replayMamba2Output(r, s, zxBCdt, xBC, y, residual);
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

// The sequence below was read from the host plans of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py DUMP 1 over the cases hostmambascan.h names); the rules are
// recurrentreplay.h's.
#include "core/sizing/hostmambascan.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>

namespace llamafit {

std::uint64_t hostMambaScanBytes(const RecurrentBlockShape& s, std::uint32_t ubatchTokens,
                                 std::uint32_t sequences, std::uint32_t outputs,
                                 const HostScanInputs& inputs) {
    if ((s.kind != RecurrentBlockKind::Mamba2 && s.kind != RecurrentBlockKind::Mamba1) || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t grouped = std::max<std::uint64_t>(s.groups, 1) * s.state; // one group in Mamba-1
    const std::uint64_t conv = di + 2 * grouped;
    const std::uint64_t ssmState = s.state * di;

    // The graph start: token ids, the mixed token/embedding input, the state-copy ids, the cache
    // inputs, the output ids; the token embeddings and the mixed path's rows, which leave for the
    // GPU, and the DUP the mixed path keeps to the end.
    // Falcon-H1 (attention beside the SSM) has positions among them, its cache's inputs before the
    // state-copy ids and no DUP; its attention runs on the CPU over copies of K, V and Q, and its
    // output waits through the scan (falcon_h1_ngl_part_np1's host plan: 23.25 MiB).
    const bool parallel = s.parallelQueryValues > 0;
    const Block tokenIds = r.alloc.allocate(4 * t);
    const Block mixedTokenIds = r.alloc.allocate(4 * t);
    r.take(s.embd * t); // inp_embd
    const Block mixedSlots = r.alloc.allocate(8 * t);
    const Block mixedEmbeddings = r.take(s.embd * t);
    const Block positions = parallel ? r.alloc.allocate(4 * t) : Block{};
    if (inputs.cacheCells > 0 && parallel) {
        replayCacheInputs(r, inputs.cacheCells, inputs.valueRowValues, inputs.flashAttention);
    }
    r.alloc.allocate(4 * r.seqs); // rs_s_copy
    if (inputs.cacheCells > 0 && !parallel) {
        replayCacheInputs(r, inputs.cacheCells, inputs.valueRowValues, inputs.flashAttention);
    }
    r.alloc.allocate(4 * std::uint64_t{outputs});
    const Block embeddings = r.take(s.embd * t);
    r.alloc.release(tokenIds);
    const Block mixedRows = r.take(s.embd * t);
    r.alloc.release(mixedTokenIds);
    if (parallel) {
        r.drop(mixedEmbeddings, mixedRows);
        r.alloc.release(mixedSlots);
        r.drop(embeddings);
        r.alloc.release(positions);
        const Block keys = r.take(s.parallelKvValues * t);
        const Block values = r.take(s.parallelKvValues * t);
        const Block query = r.take(s.parallelQueryValues * t);
        r.drop(keys, values);
        r.take(s.parallelQueryValues * t); // the attention's output
        r.drop(query);
    } else {
        r.take(s.embd * t); // DUP
        r.drop(mixedEmbeddings, mixedRows);
        r.alloc.release(mixedSlots);
        r.drop(embeddings);
    }

    // The first scan: x, dt, B and C copied in, then y and the final states. Mamba-2's x, B and C
    // are views of the conv output, whose token rows hold all three, copied whole up to their
    // last element; Mamba-1's x is the conv output itself and B and C are views of ssm_x's rows.
    const bool two = s.kind == RecurrentBlockKind::Mamba2;
    const std::uint64_t bcRow = two ? conv : s.dtRank + 2 * s.state;
    const Block x = r.alloc.allocate(4 * (two ? (t - 1) * conv + di : di * t));
    const Block dt = r.take((two ? s.heads : di) * t);
    const Block b = r.alloc.allocate(4 * ((t - 1) * bcRow + grouped));
    const Block c = r.alloc.allocate(4 * ((t - 1) * bcRow + grouped));
    const Block scanned = r.take(di * t + ssmState * r.seqs);
    r.drop(x, dt, b, c);
    if (inputs.expertsUsed > 0) {
        r.drop(scanned); // the GPU has taken y and the states back
        const std::uint64_t expertRows = inputs.expertsUsed * inputs.expertFeedForward * t;
        const Block normed = r.take(s.embd * t);
        const Block chosen = r.take(inputs.experts * t); // the argsort's copy, i32
        const Block weights = r.take(inputs.expertsUsed * t);
        const Block gate = r.take(expertRows);
        const Block up = r.take(expertRows);
        r.drop(normed);
        const Block glu = r.take(expertRows);
        r.drop(gate, up);
        const Block down = r.take(inputs.expertsUsed * s.embd * t);
        r.drop(glu);
        r.drop(chosen, weights, down); // the GPU weights and sums the outputs
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

// The sequence below was read from the plans of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh mamba_ngl0_np1 and mamba_ngl_part_np1); the rules
// are recurrentreplay.h's.
#include "core/sizing/offloadedmambaone.h"

#include "core/sizing/offloadedmamba.h"
#include "core/sizing/recurrentreplay.h"

#include <algorithm>

namespace llamafit {

std::optional<OffloadedMambaOne> offloadedMambaOne(const ModelInfo& model, const LayerPlacement& layers) {
    const RecurrentBlockShape ssm = recurrentBlockShape(model);
    const std::size_t blocks = model.trunkLayerCount();
    if (model.architecture != "mamba" || ssm.kind != RecurrentBlockKind::Mamba1 ||
        model.layers.size() < blocks) {
        return std::nullopt;
    }
    const std::optional<std::size_t> host = leadingHostBlocks(layers, blocks);
    if (!host) {
        return std::nullopt;
    }
    OffloadedMambaOne split;
    split.ssm = ssm;
    for (std::size_t il = 0; il < *host; ++il) {
        split.hostLayers.push_back(hostLayerWeights(model, il));
    }
    split.deviceLayers = static_cast<std::uint32_t>(blocks - *host);
    return split;
}

// Read from mamba_ngl0_np1's and mamba_ngl_part_np1's plans (sequence.py).
std::uint64_t offloadedMambaOneBytes(const OffloadedMambaOne& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs) {
    const RecurrentBlockShape& s = split.ssm;
    const std::size_t hostLayers = split.hostLayers.size();
    const std::size_t blocks = hostLayers + split.deviceLayers;
    if (s.kind != RecurrentBlockKind::Mamba1 || hostLayers == 0 || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t convStates = (s.convKernel - 1) * di * r.seqs;
    const std::uint64_t convWindow = di * (t / r.seqs + s.convKernel - 1) * r.seqs;
    const std::uint64_t ssmState = s.state * di;
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);
    const auto weight = [&](std::uint64_t bytes) { return r.alloc.allocate(bytes); };

    const Block residual = r.take(s.embd * t); // the token embeddings; every block adds into them
    Block stateCopyIds{};
    Block stateCopyView{};
    Block outputIds{};
    Block convRows{}; // the next GPU block's conv states, taken during the block before
    const auto takeConvRows = [&](std::size_t next) {
        convRows = r.take(convStates);
        if (next + 1 == blocks) {
            r.alloc.release(stateCopyIds); // its last reader
        }
    };
    // The last block keeps its output rows: the residual's, then ssm_out's, added in place.
    const auto outputRows = [&](Block out, Block residualRows) {
        const Block outRows = r.take(s.embd * rows);
        r.drop(out);
        r.alloc.release(outputIds);
        r.drop(residualRows, outRows);
    };
    // A block's conv and dt: ssm_conv (bias and silu in place), ssm_x, cont(dt), ssm_dt (bias in
    // place); dt, B and C leave for the CPU's scan. `w`: a host block's weights, copied in.
    const auto convolve = [&](const OffloadedLayerWeights* w) {
        const Block convX = r.take(convWindow); // concat(states, x^T)
        r.drop(convRows);
        const Block convWeight = w != nullptr ? weight(w->conv) : Block{};
        const Block x = r.take(di * t);
        r.drop(convX);
        r.alloc.release(convWeight);
        if (w != nullptr) {
            r.passing(w->convBias);
        }
        const Block projectionWeight = w != nullptr ? weight(w->projection) : Block{};
        const Block xDb = r.take((s.dtRank + 2 * s.state) * t);
        r.alloc.release(projectionWeight);
        const Block dtRows = r.take(s.dtRank * t);
        const Block dtWeight = w != nullptr ? weight(w->dt) : Block{};
        const Block dt = r.take(di * t);
        r.alloc.release(dtWeight);
        r.drop(dtRows);
        if (w != nullptr) {
            r.passing(w->dtBias);
        }
        r.drop(dt, xDb);
        return x;
    };

    for (std::size_t b = 0; b < hostLayers; ++b) {
        const OffloadedLayerWeights& w = split.hostLayers[b];
        const bool last = b + 1 == blocks;
        const bool beforeDevice = b + 1 == hostLayers && !last;
        const Block norm = r.take(s.embd * t);
        r.passing(w.attentionNorm);
        const Block inputWeight = weight(w.input);
        convRows = r.take(convStates); // the host's conv states, copied in
        const Block xz = r.take(2 * di * t);
        r.alloc.release(inputWeight);
        r.drop(norm);
        const Block x = convolve(&w);
        Block y;
        Block z;
        if (beforeDevice) {
            stateCopyIds = r.alloc.allocate(4 * r.seqs);
            takeConvRows(b + 1);
            z = r.take(di * t); // cont(z)
            r.drop(xz);
            const Block skip = weight(w.skip);
            y = r.take(di * t); // the scan's y, copied back
            r.alloc.release(skip);
        } else {
            const Block skip = weight(w.skip);
            y = r.take(di * t);
            z = r.take(di * t);
            r.drop(xz);
            r.alloc.release(skip);
        }
        r.drop(x); // x * D in place, then added into y in place
        const Block gated = r.take(di * t);
        r.drop(z, y);
        const Block outputWeight = weight(w.output);
        if (last) {
            outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
        }
        const Block out = r.take(s.embd * t); // ssm_out
        r.alloc.release(outputWeight);
        r.drop(gated);
        if (last) {
            const Block residualRows = r.take(s.embd * rows);
            r.drop(residual);
            outputRows(out, residualRows);
            return r.alloc.peakBytes();
        }
        r.drop(out); // added into the residual in place
    }

    for (std::size_t b = hostLayers; b < blocks; ++b) {
        const bool last = b + 1 == blocks;
        const Block norm = r.take(s.embd * t);
        const Block xz = r.take(2 * di * t);
        r.drop(norm);
        const Block x = convolve(nullptr);
        if (b == hostLayers) {
            stateCopyView = r.alloc.allocate(4 * r.seqs);
        }
        const Block states = r.take(ssmState * r.seqs); // the scan's copies back: final states
        const Block y = r.take(di * t);                 // ... and y
        if (last) {
            outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
        }
        const Block gathered = r.take(ssmState * (r.seqs - 1)); // build_rs: the other slots' states
        Block residualRows{};
        if (last) {
            r.alloc.release(stateCopyView);
            residualRows = r.take(s.embd * rows);
            r.drop(residual);
        }
        r.drop(gathered);
        const Block z = r.take(di * t);
        r.drop(xz);
        r.drop(x);
        if (!last) {
            takeConvRows(b + 1);
        }
        const Block gated = r.take(di * t);
        r.drop(z, y, states);
        const Block out = r.take(s.embd * t);
        r.drop(gated);
        if (last) {
            outputRows(out, residualRows);
            break;
        }
        r.drop(out);
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

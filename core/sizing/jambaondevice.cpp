// The sequence below was read tensor by tensor from the Vulkan0 plans of llama-server 0.7.0 (b11669)
// on lavapipe (scripts/alloc-plan/sequence.py over run-case.sh jamba_l6_ngl_all,
// jamba_l6_ngl_all_np1_faoff and jamba_l6_ngl_all_c16384_np4_faoff); the rules are
// recurrentreplay.h's. Graph: src/models/jamba.cpp, build_mamba_layer in src/models/mamba-base.cpp.
#include "core/sizing/jambaondevice.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>

namespace llamafit {

std::optional<JambaStack> jambaStack(const ModelInfo& model, const KvPlan& kv, bool flashAttention,
                                     bool expertsRefused, bool kqRefused) {
    const RecurrentBlockShape ssm = recurrentBlockShape(model);
    if (model.architecture != "jamba" || ssm.kind != RecurrentBlockKind::Mamba1 || !ssm.normedDtBc ||
        !expertsRefused || (!flashAttention && !kqRefused) || kv.caches.size() > 1) {
        return std::nullopt;
    }
    const std::size_t blocks = model.trunkLayerCount();
    if (blocks == 0 || model.layers.size() < blocks) {
        return std::nullopt;
    }
    JambaStack stack;
    stack.ssm = ssm;
    stack.flashAttention = flashAttention;
    stack.expertCount = model.expertCount;
    stack.expertsUsed = model.expertUsedCount;
    for (std::size_t il = 0; il < blocks; ++il) {
        const LayerInfo& layer = model.layers[il];
        JambaStack::Layer kind;
        kind.attention = !layer.recurrent;
        kind.experts = model.blockTensor(il, "ffn_gate_inp.weight") != nullptr;
        if (kind.attention) {
            const bool afterDense = il == 0 || !stack.layers.back().experts;
            if (kind.experts || afterDense || il + 1 == blocks || !layer.hasKv) {
                return std::nullopt;
            }
            stack.queryValues = std::uint64_t{layer.headCount} * layer.keyHeadDim;
            stack.keyValues = std::uint64_t{layer.headCountKv} * layer.keyHeadDim;
            stack.valueRow = std::uint64_t{layer.headCountKv} * layer.valueHeadDim;
        }
        if (!kind.experts) {
            stack.feedForward = std::max<std::uint64_t>(stack.feedForward, layer.feedForwardLength);
        }
        stack.layers.push_back(kind);
    }
    // The last block's FFN runs on the output rows; the plans show it with experts only.
    if (!stack.layers.back().experts || stack.expertsUsed == 0) {
        return std::nullopt;
    }
    if (stack.queryValues > 0) {
        if (kv.caches.empty()) {
            return std::nullopt;
        }
        stack.maskCells = kv.caches.front().cells;
    }
    return stack;
}

std::uint64_t jambaDeviceBytes(const JambaStack& stack, std::uint32_t ubatchTokens, std::uint32_t sequences,
                               std::uint32_t outputs) {
    const RecurrentBlockShape& s = stack.ssm;
    if (s.kind != RecurrentBlockKind::Mamba1 || stack.layers.empty() || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);
    const std::size_t blocks = stack.layers.size();
    std::size_t lastMamba = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        lastMamba = stack.layers[b].attention ? lastMamba : b;
    }

    // The host's inputs: the mixed path's two rows and slot ids, the state-copy ids the conv rows'
    // get_rows read, the token embeddings (the residual, added to in place throughout) and the DUP.
    Block stateCopyIds{};
    const DeviceGraphStart start =
        replayDeviceGraphStart(r, s.embd, [&] { stateCopyIds = r.alloc.allocate(4 * r.seqs); }, [] {});
    Block residual = start.residual;

    // Block b's conv-state rows (get_rows), taken in the split before its own; the last Mamba
    // block's rows free the state-copy ids.
    const auto takeConvRows = [&](std::size_t b) {
        const Block taken = r.take((s.convKernel - 1) * di * r.seqs);
        if (b == lastMamba) {
            r.alloc.release(stateCopyIds);
        }
        return taken;
    };
    // The attention layer's graph inputs: K and V row indices (one V index per value without flash
    // attention) and, with flash attention, the f16 mask. Without it the GPU refuses KQ, so no mask.
    struct CacheInputs {
        Block keyIds, valueIds, mask;
    };
    const auto takeCacheInputs = [&] {
        CacheInputs in;
        in.keyIds = r.alloc.allocate(8 * t);
        in.valueIds = r.alloc.allocate(8 * t * (stack.flashAttention ? 1 : stack.valueRow));
        if (stack.flashAttention) {
            in.mask = r.alloc.allocate(2 * stack.maskCells * t);
        }
        return in;
    };

    Block convRows{};
    Block stateCopyView{}; // the s_copy view the scan's state rows follow
    Block outputIds{};
    CacheInputs cacheInputs{};
    for (std::size_t b = 0; b < blocks; ++b) {
        const JambaStack::Layer layer = stack.layers[b];
        const bool last = b + 1 == blocks;
        const bool mambaNext = !last && !stack.layers[b + 1].attention;
        const bool attentionNext = !last && stack.layers[b + 1].attention;
        const Block norm = r.take(s.embd * t);
        if (b == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        if (layer.attention) {
            const Block q = r.take(stack.queryValues * t);
            const Block v = r.take(stack.keyValues * t);
            const Block k = r.take(stack.keyValues * t);
            r.drop(norm);
            r.drop(k); // stored into the cache
            r.alloc.release(cacheInputs.keyIds);
            r.drop(v);
            r.alloc.release(cacheInputs.valueIds);
            if (stack.flashAttention) {
                const Block attended = r.take(stack.queryValues * t);
                r.drop(q);
                r.alloc.release(cacheInputs.mask);
                if (mambaNext) {
                    convRows = takeConvRows(b + 1);
                }
                const Block projected = r.take(s.embd * t);
                r.drop(attended);
                r.drop(projected); // added into the residual in place
            } else {
                r.drop(q); // to the CPU, whose permuted result comes back and is made contiguous
                const Block permuted = r.take(stack.queryValues * t);
                const Block attended = r.take(stack.queryValues * t);
                r.drop(permuted);
                const Block projected = r.take(s.embd * t);
                r.drop(attended);
                r.drop(projected);
                if (mambaNext) {
                    convRows = takeConvRows(b + 1);
                }
            }
        } else {
            const Block xz = r.take(2 * di * t); // ssm_in
            r.drop(norm);
            if (b == 0) {
                convRows = takeConvRows(b);
            }
            const Block convX = r.take(di * (t / r.seqs + s.convKernel - 1) * r.seqs); // concat(states, x^T)
            r.drop(convRows);
            const Block x = r.take(di * t); // ssm_conv; bias add and silu in place
            r.drop(convX);
            const Block xDb = r.take((s.dtRank + 2 * s.state) * t); // ssm_x: dt, B, C
            const Block dtNorm = r.take(s.dtRank * t);               // RMS norms on dt, B and C
            const Block bNorm = r.take(s.state * t);
            const Block cNorm = r.take(s.state * t);
            r.drop(xDb);
            const Block dt = r.take(di * t); // ssm_dt, bias in place
            r.drop(dtNorm);
            r.drop(dt); // dt, B and C have gone to the host for the scan
            r.drop(bNorm, cNorm);
            if (b == 0) {
                stateCopyView = r.alloc.allocate(4 * r.seqs);
            }
            const Block states = r.take(s.state * di * r.seqs); // the scan's copies back: final states
            if (last) {
                outputIds = r.alloc.allocate(4 * rows);
            }
            const Block y = r.take(di * t);                             // ... and y
            const Block gathered = r.take(s.state * di * (r.seqs - 1)); // build_rs: the other slots' rows
            if (last) {
                r.alloc.release(stateCopyView);
                const Block residualRows = r.take(s.embd * rows);
                r.drop(residual);
                residual = residualRows;
            }
            r.drop(gathered);
            const Block z = r.take(di * t); // cont(z)
            r.drop(xz);
            r.drop(x); // x * D in place, then added into y in place
            if (mambaNext && !layer.experts) {
                convRows = takeConvRows(b + 1); // the split after this scan runs the next block's conv
            }
            const Block gated = r.take(di * t); // swiglu(z, y)
            r.drop(z, y, states);
            const Block out = r.take(s.embd * t); // ssm_out
            r.drop(gated);
            if (last) {
                const Block outRows = r.take(s.embd * rows);
                r.drop(out);
                r.alloc.release(outputIds);
                r.drop(outRows); // added into the residual's rows in place
            } else {
                r.drop(out); // added into the residual in place
            }
        }

        const std::uint64_t ft = last ? rows : t; // the last FFN runs on the output rows
        const Block ffnNorm = r.take(s.embd * ft);
        if (layer.experts) {
            const Block logits = r.take(stack.expertCount * ft);
            const Block probs = r.take(stack.expertCount * ft);
            const Block sorted = r.take(stack.expertCount * ft); // argsort, int32
            const Block weights = r.take(stack.expertsUsed * ft);
            r.drop(probs, logits);
            r.drop(ffnNorm); // to the CPU for the experts
            r.drop(sorted);
            const Block experts = r.take(stack.expertsUsed * s.embd * ft); // the down products come back
            if (attentionNext) {
                cacheInputs = takeCacheInputs(); // the next split runs the attention
            }
            r.drop(weights); // the weighting runs in place on the products
            const Block summed = r.take(s.embd * ft);
            r.drop(experts);
            if (mambaNext) {
                convRows = takeConvRows(b + 1);
            }
            r.drop(summed); // added into the residual in place
        } else {
            r.drop(replayGatedFeedForward(r, s.embd, stack.feedForward, ffnNorm));
        }
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

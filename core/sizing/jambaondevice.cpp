// The sequences below were read tensor by tensor from the Vulkan0 plans of llama-server 0.7.0 (b11669)
// on lavapipe (scripts/alloc-plan/sequence.py over run-case.sh jamba_l6_ngl_all,
// jamba_l6_ngl_all_np1_faoff, jamba_l6_ngl_all_c16384_np4_faoff, jamba_l6_ngl0_np1,
// jamba_l6_ngl_part_np1 and -ngl 2, 4 and 5 runs through REC_DIR); the rules are recurrentreplay.h's.
// Graph: src/models/jamba.cpp, build_mamba_layer in src/models/mamba-base.cpp.
#include "core/sizing/jambaondevice.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>
#include <utility>

namespace llamafit {

std::optional<JambaStack> jambaStack(const ModelInfo& model, const KvPlan& kv, bool flashAttention,
                                     bool expertsRefused, bool kqRefused, std::size_t hostLayers) {
    const RecurrentBlockShape ssm = recurrentBlockShape(model);
    if (model.architecture != "jamba" || ssm.kind != RecurrentBlockKind::Mamba1 || !ssm.normedDtBc ||
        !expertsRefused || (!flashAttention && !kqRefused && hostLayers == 0) || kv.caches.size() > 1) {
        return std::nullopt;
    }
    const std::size_t blocks = model.trunkLayerCount();
    if (blocks == 0 || model.layers.size() < blocks || hostLayers > blocks) {
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
    if (hostLayers > 0 && hostLayers < blocks) {
        // The last host layer hands over as the plans showed: its routed MoE, or a dense Mamba layer
        // or (flash attention off) an attention layer before a GPU Mamba layer.
        const JambaStack::Layer lastHost = stack.layers[hostLayers - 1];
        const bool mambaNext = !stack.layers[hostLayers].attention;
        if (!lastHost.experts && !(mambaNext && (!lastHost.attention || !flashAttention))) {
            return std::nullopt;
        }
    }
    if (stack.queryValues > 0) {
        if (kv.caches.empty() || kv.caches.front().layers == 0) {
            return std::nullopt;
        }
        const KvCacheEstimate& cache = kv.caches.front();
        stack.maskCells = cache.cells;
        stack.valueCache = cache.vBytes / cache.layers;
    }
    for (std::size_t il = 0; il < hostLayers; ++il) {
        stack.hostLayers.push_back(hostLayerWeights(model, il));
    }
    return stack;
}

std::uint64_t jambaDeviceBytes(const JambaStack& stack, std::uint32_t ubatchTokens, std::uint32_t sequences,
                               std::uint32_t outputs) {
    const RecurrentBlockShape& s = stack.ssm;
    if (s.kind != RecurrentBlockKind::Mamba1 || stack.layers.empty() || ubatchTokens == 0 ||
        stack.hostLayers.size() > stack.layers.size()) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t convStates = (s.convKernel - 1) * di * r.seqs;
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);
    const std::size_t blocks = stack.layers.size();
    const std::size_t hostLayers = stack.hostLayers.size();
    std::size_t lastMamba = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        lastMamba = stack.layers[b].attention ? lastMamba : b;
    }
    // A host layer's weights are copied in for their ops; a GPU layer's weights (`none`: 0 bytes) take no
    // space (RecurrentReplay::passing, ::product).
    const OffloadedLayerWeights none;

    // With every layer on the GPU the host's inputs come first: the mixed path's two rows and slot ids,
    // the state-copy ids the conv rows' get_rows read, the token embeddings (the residual, added to in
    // place throughout) and the DUP. After host layers the GPU holds the embeddings only.
    Block stateCopyIds{};
    DeviceGraphStart start{};
    Block residual{};
    if (hostLayers == 0) {
        start = replayDeviceGraphStart(
            r, s.embd, [&] { stateCopyIds = r.alloc.allocate(4 * r.seqs); }, [] {});
        residual = start.residual;
    } else {
        residual = r.take(s.embd * t);
    }

    // Block b's conv-state rows (get_rows), taken in the split before its own; the last Mamba block's
    // rows free the state-copy ids.
    const auto takeConvRows = [&](std::size_t b) {
        const Block taken = r.take(convStates);
        if (b == lastMamba) {
            r.alloc.release(stateCopyIds);
        }
        return taken;
    };
    // A GPU attention layer's graph inputs: K and V row indices (one V index per value without flash
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
    Block stateCopyView{}; // the s_copy view the other slots' state rows follow
    Block outputIds{};
    CacheInputs cacheInputs{};
    bool firstGpuMamba = true;
    for (std::size_t b = 0; b < blocks; ++b) {
        const JambaStack::Layer layer = stack.layers[b];
        const bool host = b < hostLayers;
        const OffloadedLayerWeights& w = host ? stack.hostLayers[b] : none;
        const bool last = b + 1 == blocks;
        const bool mambaNext = !last && !stack.layers[b + 1].attention;
        const bool attentionNext = !last && stack.layers[b + 1].attention;
        const bool handsOver = b + 1 == hostLayers && !last; // the last host layer before the GPU's
        const Block norm = r.take(s.embd * t);
        if (b == 0 && !host) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        r.passing(w.attentionNorm);
        if (layer.attention) {
            const Block q = r.product(w.query, stack.queryValues);
            const Block v = r.product(w.value, stack.keyValues);
            const Block k = r.product(w.key, stack.keyValues);
            r.drop(norm);
            r.drop(k); // stored into the cache
            r.alloc.release(std::exchange(cacheInputs.keyIds, {}));
            r.drop(v);
            r.alloc.release(std::exchange(cacheInputs.valueIds, {}));
            Block attended{};
            if (host && stack.flashAttention) {
                r.drop(q); // the CPU attends over the host cache; its output comes back
            } else if (host) {
                // Without flash attention the scheduler makes the layer's transposed V view contiguous on
                // the GPU and hands it back to the CPU's KQV product, whose permuted output comes back.
                const Block valueView = r.alloc.allocate(stack.valueCache);
                const Block values = r.alloc.allocate(stack.valueCache);
                r.alloc.release(valueView);
                r.drop(q);
                r.alloc.release(values);
                const Block permuted = r.take(stack.queryValues * t);
                if (handsOver) {
                    stateCopyIds = r.alloc.allocate(4 * r.seqs);
                }
                attended = r.take(stack.queryValues * t);
                r.drop(permuted);
                if (handsOver) {
                    convRows = takeConvRows(b + 1);
                }
            } else if (stack.flashAttention) {
                attended = r.take(stack.queryValues * t);
                r.drop(q);
                r.alloc.release(std::exchange(cacheInputs.mask, {}));
                if (mambaNext) {
                    convRows = takeConvRows(b + 1);
                }
            } else {
                r.drop(q); // to the CPU, whose permuted result comes back and is made contiguous
                const Block permuted = r.take(stack.queryValues * t);
                attended = r.take(stack.queryValues * t);
                r.drop(permuted);
            }
            const Block outputWeight = r.alloc.allocate(w.attentionOutput);
            if (host && stack.flashAttention) {
                attended = r.take(stack.queryValues * t);
            }
            const Block projected = r.take(s.embd * t);
            r.alloc.release(outputWeight);
            r.drop(attended);
            r.drop(projected); // added into the residual in place
            if (!host && !stack.flashAttention && mambaNext) {
                convRows = takeConvRows(b + 1);
            }
        } else {
            const Block inputWeight = r.alloc.allocate(w.input);
            const Block hostConvRows = host ? r.take(convStates) : Block{}; // the host's conv states
            const Block xz = r.take(2 * di * t);                            // ssm_in
            r.alloc.release(inputWeight);
            r.drop(norm);
            if (!host && firstGpuMamba && hostLayers == 0) {
                convRows = takeConvRows(b);
            }
            const Block convX = r.take(di * (t / r.seqs + s.convKernel - 1) * r.seqs); // concat(states, x^T)
            r.drop(host ? hostConvRows : std::exchange(convRows, {}));
            const Block convWeight = r.alloc.allocate(w.conv);
            const Block x = r.take(di * t); // ssm_conv; bias add and silu in place
            r.drop(convX);
            r.alloc.release(convWeight);
            r.passing(w.convBias);
            const Block projectionWeight = r.alloc.allocate(w.projection);
            const Block xDb = r.take((s.dtRank + 2 * s.state) * t); // ssm_x: dt, B, C
            r.alloc.release(projectionWeight);
            const Block dtNorm = r.take(s.dtRank * t); // RMS norms on dt, B and C, their weights in place
            r.passing(w.dtNorm);
            Block bNorm{};
            Block cNorm{};
            if (!host) {
                bNorm = r.take(s.state * t);
                cNorm = r.take(s.state * t);
                r.drop(xDb);
            }
            const Block dtWeight = r.alloc.allocate(w.dt);
            const Block dt = r.take(di * t); // ssm_dt, bias in place
            r.alloc.release(dtWeight);
            r.drop(dtNorm);
            r.passing(w.dtBias);
            if (host) {
                bNorm = r.take(s.state * t);
                r.passing(w.bNorm);
                cNorm = r.take(s.state * t);
                r.drop(xDb);
                r.passing(w.cNorm);
            }
            r.drop(dt); // dt, B and C have gone to the host for the scan
            r.drop(bNorm, cNorm);
            Block residualRows{};
            Block states{};
            Block y{};
            Block z{};
            if (host) {
                if (last) {
                    outputIds = r.alloc.allocate(4 * rows);
                    residualRows = r.take(s.embd * rows);
                    r.drop(residual);
                }
                if (handsOver && !layer.experts) { // a dense layer before a GPU Mamba layer
                    stateCopyIds = r.alloc.allocate(4 * r.seqs);
                    convRows = takeConvRows(b + 1);
                }
                const bool zFirst = last || (handsOver && !layer.experts);
                if (zFirst) {
                    z = r.take(di * t); // cont(z)
                    r.drop(xz);
                }
                const Block skipWeight = r.alloc.allocate(w.skip);
                y = r.take(di * t); // the scan's y, copied back
                if (!zFirst) {
                    z = r.take(di * t);
                    r.drop(xz);
                }
                r.alloc.release(skipWeight);
                r.drop(x); // x * D in place, then added into y in place
            } else {
                if (firstGpuMamba) {
                    stateCopyView = r.alloc.allocate(4 * (r.seqs - 1)); // the other slots' ids (build_rs)
                }
                states = r.take(s.state * di * r.seqs); // the scan's copies back: final states
                if (last) {
                    outputIds = r.alloc.allocate(4 * rows);
                }
                y = r.take(di * t);                                         // ... and y
                const Block gathered = r.take(s.state * di * (r.seqs - 1)); // build_rs: the other slots' rows
                if (last) {
                    r.alloc.release(stateCopyView);
                    residualRows = r.take(s.embd * rows);
                    r.drop(residual);
                }
                r.drop(gathered);
                z = r.take(di * t); // cont(z)
                r.drop(xz);
                r.drop(x);
                if (mambaNext && !layer.experts) {
                    convRows = takeConvRows(b + 1); // the split after this scan runs the next block's conv
                }
                firstGpuMamba = false;
            }
            const Block gated = r.take(di * t); // swiglu(z, y)
            r.drop(z, y, states);
            const Block outputWeight = r.alloc.allocate(w.output);
            const Block out = r.take(s.embd * t); // ssm_out
            r.alloc.release(outputWeight);
            r.drop(gated);
            if (last) {
                const Block outRows = r.take(s.embd * rows);
                r.drop(out);
                r.alloc.release(outputIds);
                r.drop(outRows); // added into the residual's rows in place
                residual = residualRows;
            } else {
                r.drop(out); // added into the residual in place
            }
        }

        const std::uint64_t ft = last ? rows : t; // the last FFN runs on the output rows
        const Block ffnNorm = r.take(s.embd * ft);
        if (host && last) {
            // Fewer rows than op offload's 32-token batch: the rest of the host FFN runs on the CPU.
            r.drop(ffnNorm);
            r.drop(residual);
            break;
        }
        r.passing(w.feedForwardNorm);
        if (layer.experts) {
            const Block routerWeight = r.alloc.allocate(w.router);
            const Block logits = r.take(stack.expertCount * ft);
            r.alloc.release(routerWeight);
            const Block probs = r.take(stack.expertCount * ft);
            const Block sorted = r.take(stack.expertCount * ft); // argsort, int32
            const Block weights = r.take(stack.expertsUsed * ft);
            r.drop(probs, logits);
            r.drop(ffnNorm); // to the CPU for the experts
            r.drop(sorted);
            if (host && mambaNext && b + 1 < hostLayers) {
                r.drop(weights); // the CPU weights and sums the experts too; the sum comes back
                r.drop(r.take(s.embd * ft));
                continue;
            }
            const Block experts = r.take(stack.expertsUsed * s.embd * ft); // the down products come back
            if (attentionNext && (!host || handsOver)) {
                cacheInputs = takeCacheInputs(); // the next split runs the attention
            }
            if (handsOver) {
                stateCopyIds = r.alloc.allocate(4 * r.seqs);
            }
            r.drop(weights); // the weighting runs in place on the products
            const Block summed = r.take(s.embd * ft);
            r.drop(experts);
            if (mambaNext && (!host || handsOver)) {
                convRows = takeConvRows(b + 1);
            }
            r.drop(summed); // added into the residual in place
        } else {
            r.drop(replayGatedFeedForward(r, s.embd, stack.feedForward, ffnNorm, {w.gate, w.up, w.down}));
        }
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

// The sequences below were read from the plans of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh lfm2_ngl0_np1 and lfm2_ngl_part_np1); the rules are
// recurrentreplay.h's.
#include "core/sizing/offloadedlfm2.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace llamafit {

std::optional<OffloadedLfm2> offloadedLfm2(const ModelInfo& model, const KvPlan& kv,
                                           const LayerPlacement& layers, bool flashAttention) {
    const std::size_t blocks = model.trunkLayerCount();
    if (model.architecture != "lfm2" || blocks == 0 || model.layers.size() < blocks ||
        layers.layerDevice.size() < blocks || kv.caches.size() != 1 || kv.caches.front().layers == 0) {
        return std::nullopt;
    }
    std::size_t hostLayers = 0;
    while (hostLayers < blocks && layers.layerDevice[hostLayers] == kHostDevice) {
        ++hostLayers;
    }
    if (hostLayers == 0 ||
        std::any_of(layers.layerDevice.begin() + static_cast<std::ptrdiff_t>(hostLayers),
                    layers.layerDevice.begin() + static_cast<std::ptrdiff_t>(blocks),
                    [&](int device) { return device != layers.layerDevice[hostLayers]; })) {
        return std::nullopt; // no host layer, host layers after GPU ones, or several GPUs
    }
    OffloadedLfm2 split;
    split.embd = model.embeddingLength;
    split.flashAttention = flashAttention;
    for (std::size_t il = 0; il < blocks; ++il) {
        const LayerInfo& layer = model.layers[il];
        split.attention.push_back(layer.hasKv);
        split.feedForward = std::max<std::uint64_t>(split.feedForward, layer.feedForwardLength);
        if (layer.hasKv) {
            split.heads = layer.headCount;
            split.queryValues = std::uint64_t{layer.headCount} * layer.keyHeadDim;
            split.keyValues = std::uint64_t{layer.headCountKv} * layer.keyHeadDim;
        } else {
            split.convStates = std::max(split.convStates, layer.recurrentConvWidth);
        }
    }
    if (split.queryValues == 0 || split.convStates == 0 || split.attention.back()) {
        return std::nullopt;
    }
    if (hostLayers < blocks) {
        // The plans show flash attention off (the probe's doing when the last host layer attends) and
        // every GPU convolution after an attention layer.
        if (flashAttention || !split.attention[hostLayers - 1]) {
            return std::nullopt;
        }
        for (std::size_t il = hostLayers; il < blocks; ++il) {
            if (!split.attention[il] && !split.attention[il - 1]) {
                return std::nullopt;
            }
        }
    }
    const KvCacheEstimate& cache = kv.caches.front();
    split.keyCache = cache.kBytes / cache.layers;
    split.valueCache = cache.vBytes / cache.layers;
    split.cells = cache.cells;
    for (std::size_t il = 0; il < hostLayers; ++il) {
        Lfm2LayerWeights w;
        w.attentionNorm = model.blockTensorBytes(il, "attn_norm.weight");
        w.input = model.blockTensorBytes(il, "shortconv.in_proj.weight");
        w.conv = model.blockTensorBytes(il, "shortconv.conv.weight");
        w.output = model.blockTensorBytes(il, "shortconv.out_proj.weight");
        w.query = model.blockTensorBytes(il, "attn_q.weight");
        w.queryNorm = model.blockTensorBytes(il, "attn_q_norm.weight");
        w.key = model.blockTensorBytes(il, "attn_k.weight");
        w.keyNorm = model.blockTensorBytes(il, "attn_k_norm.weight");
        w.value = model.blockTensorBytes(il, "attn_v.weight");
        w.attentionOutput = model.blockTensorBytes(il, "attn_output.weight");
        w.feedForwardNorm = model.blockTensorBytes(il, "ffn_norm.weight");
        w.gate = model.blockTensorBytes(il, "ffn_gate.weight");
        w.up = model.blockTensorBytes(il, "ffn_up.weight");
        w.down = model.blockTensorBytes(il, "ffn_down.weight");
        split.hostLayers.push_back(w);
    }
    return split;
}

std::uint64_t offloadedLfm2Bytes(const OffloadedLfm2& split, std::uint32_t ubatchTokens,
                                 std::uint32_t sequences, std::uint32_t outputs) {
    const std::size_t blocks = split.attention.size();
    const std::size_t hostLayers = split.hostLayers.size();
    if (hostLayers == 0 || hostLayers > blocks || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t e = split.embd;
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);
    const std::uint64_t convStates = split.convStates * r.seqs;
    const std::uint64_t kq = 4 * split.cells * t * split.heads;
    const std::size_t lastAttention =
        static_cast<std::size_t>(std::find(split.attention.rbegin(), split.attention.rend(), true).base() -
                                 split.attention.begin() - 1);
    // A host layer's weights are copied in for their ops; a GPU layer's weights (`none`: 0 bytes) take no
    // space (RecurrentReplay::passing, ::product).
    const Lfm2LayerWeights none;

    Block residual = r.take(e * t); // the token embeddings, looked up on the host
    Block positions{};
    Block mask{};         // the f32 mask the GPU's attention reads
    Block stateCopyIds{}; // the GPU convolutions' conv rows follow them
    Block convRows{};     // a GPU convolution's conv states, taken in the attention layer before it
    Block outputIds{};
    Block keyIds{};
    Block valueIds{};
    const auto takeConvRows = [&](std::size_t next) {
        convRows = r.take(convStates);
        if (std::find(split.attention.begin() + static_cast<std::ptrdiff_t>(next) + 1, split.attention.end(),
                      false) == split.attention.end()) {
            r.alloc.release(stateCopyIds); // the last convolution's rows: their last reader
        }
    };
    // A GPU attention layer: KQ, soft_max (in place) and KQV over its V made contiguous; the output made
    // contiguous. The next convolution's conv rows come in between.
    const auto attendOnGpu = [&](std::size_t b, Block query) {
        const Block values = r.alloc.allocate(split.valueCache);
        const Block scores = r.alloc.allocate(kq);
        r.drop(query);
        if (b == lastAttention) {
            r.alloc.release(std::exchange(mask, {}));
        }
        if (b + 1 < blocks && !split.attention[b + 1]) {
            takeConvRows(b + 1);
        }
        const Block weighted = r.take(split.queryValues * t);
        r.alloc.release(values);
        r.alloc.release(scores);
        const Block attended = r.take(split.queryValues * t);
        r.drop(weighted);
        return attended;
    };

    for (std::size_t b = 0; b < blocks; ++b) {
        const bool host = b < hostLayers;
        const Lfm2LayerWeights& w = host ? split.hostLayers[b] : none;
        const bool last = b + 1 == blocks;
        const bool handsOver = b + 1 == hostLayers && !last;
        const Block norm = r.take(e * t);
        r.passing(w.attentionNorm);
        Block residualRows{};
        if (split.attention[b]) {
            const Block q = r.product(w.query, split.queryValues);
            Block v{};
            Block k{};
            if (!host) {
                v = r.take(split.keyValues * t);
                k = r.take(split.keyValues * t);
                r.drop(norm);
            }
            const Block qNormed = r.take(split.queryValues * t); // q norm; its weight and RoPE in place
            r.drop(q);
            const Block queryNormWeight = r.alloc.allocate(w.queryNorm);
            if (positions.bytes == 0) {
                positions = r.alloc.allocate(4 * t);
            }
            r.alloc.release(queryNormWeight);
            if (host) {
                const Block valueWeight = r.alloc.allocate(w.value);
                v = r.take(split.keyValues * t);
                r.alloc.release(valueWeight);
                const Block keyWeight = r.alloc.allocate(w.key);
                k = r.take(split.keyValues * t);
                r.alloc.release(keyWeight);
                r.drop(norm);
            } else {
                r.drop(v); // stored into the cache
                if (b == lastAttention) {
                    r.alloc.release(valueIds);
                }
            }
            const Block kNormed = r.take(split.keyValues * t); // k norm; RoPE in place
            r.drop(k);
            r.passing(w.keyNorm);
            if (b == lastAttention) {
                r.alloc.release(positions);
            }
            r.drop(kNormed); // stored into the cache
            if (host) {
                r.drop(v);
            } else if (b == lastAttention) {
                r.alloc.release(keyIds);
            }
            Block attended{};
            Block outputWeight{};
            if (host && !handsOver) {
                r.drop(qNormed); // the CPU attends over the host cache; its output comes back
                outputWeight = r.alloc.allocate(w.attentionOutput);
                attended = r.take(split.queryValues * t);
            } else if (host) {
                // The last host layer: the GPU attends over copies of its K and its transposed V, and the
                // f32 mask, which stays for the GPU's layers.
                const Block valueView = r.alloc.allocate(split.valueCache);
                const Block keys = r.alloc.allocate(split.keyCache);
                mask = r.alloc.allocate(4 * split.cells * t);
                stateCopyIds = r.alloc.allocate(4 * r.seqs);
                const Block values = r.alloc.allocate(split.valueCache);
                r.alloc.release(valueView);
                const Block scores = r.alloc.allocate(kq);
                r.alloc.release(keys);
                r.drop(qNormed);
                takeConvRows(b + 1);
                const Block weighted = r.take(split.queryValues * t);
                r.alloc.release(values);
                r.alloc.release(scores);
                attended = r.take(split.queryValues * t);
                r.drop(weighted);
                outputWeight = r.alloc.allocate(w.attentionOutput);
            } else {
                attended = attendOnGpu(b, qNormed);
            }
            const Block out = r.take(e * t);
            r.alloc.release(outputWeight);
            r.drop(attended);
            r.drop(out); // added into the residual in place
        } else {
            // The short convolution: in_proj to B, C and x; B * x over the conv window, the conv, C * it
            // in place; out_proj, added into the residual in place.
            if (!host && last) {
                residualRows = r.take(e * rows);
                r.drop(std::exchange(residual, residualRows));
            }
            const Block inputWeight = r.alloc.allocate(w.input);
            const Block hostConvRows = host ? r.take(convStates) : Block{}; // the host's conv states
            const Block projected = r.take(3 * e * t);
            r.alloc.release(inputWeight);
            r.drop(norm);
            const Block gatedInput = r.take(e * t);
            const Block window = r.take(e * (t / r.seqs + convStates / (e * r.seqs)) * r.seqs);
            r.drop(host ? hostConvRows : std::exchange(convRows, {}));
            r.drop(gatedInput);
            if (host && last) {
                outputIds = r.alloc.allocate(4 * rows);
                residualRows = r.take(e * rows);
                r.drop(std::exchange(residual, residualRows));
            }
            const Block convWeight = r.alloc.allocate(w.conv);
            const Block conv = r.take(e * t);
            r.drop(window);
            r.alloc.release(convWeight);
            r.drop(projected);
            const Block out = r.product(w.output, e);
            r.drop(conv);
            if (last) {
                const Block outRows = r.take(e * rows);
                r.drop(out);
                r.alloc.release(outputIds);
                r.drop(outRows); // added into the residual's rows in place
            } else {
                r.drop(out);
            }
        }

        if (last) {
            // The FFN on the output rows: on the CPU for a host layer (too few for op offload).
            const Block ffnNorm = r.take(e * rows);
            if (host) {
                r.drop(ffnNorm);
                r.drop(residual); // the CPU adds the FFN's output
            } else {
                const Block gate = r.take(split.feedForward * rows);
                const Block up = r.take(split.feedForward * rows);
                r.drop(ffnNorm);
                const Block glu = r.take(split.feedForward * rows);
                r.drop(gate, up);
                const Block out = r.take(e * rows);
                r.drop(glu);
                r.drop(out); // added into the residual's rows, which the output layer reads
            }
            break;
        }
        const Block ffnNorm = r.take(e * t);
        r.passing(w.feedForwardNorm);
        // The last host layer's: the GPU's graph inputs arrive with the down product (K and V row
        // indices, the output ids).
        const auto graphInputs = [&] {
            keyIds = r.alloc.allocate(8 * t);
            valueIds = r.alloc.allocate(8 * t);
            outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
        };
        r.drop(replayGatedFeedForward(r, e, split.feedForward, ffnNorm, {w.gate, w.up, w.down},
                                      handsOver ? std::function<void()>(graphInputs) : nullptr));
    }
    return r.alloc.peakBytes();
}

std::uint64_t offloadedLfm2HostBytes(const OffloadedLfm2& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs) {
    if (split.hostLayers.empty() || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t e = split.embd;
    // The inputs: token ids, the mixed path's token ids, the embeddings' input, its slot ids and rows, the
    // state-copy ids, positions, K and V row indices, the mask (f16 with flash attention), the output ids.
    const Block tokens = r.alloc.allocate(4 * t);
    const Block mixedTokens = r.alloc.allocate(4 * t);
    r.take(e * t);
    const Block slots = r.alloc.allocate(8 * t);
    const Block mixedEmbeddings = r.take(e * t);
    r.alloc.allocate(4 * r.seqs);
    const Block positions = r.alloc.allocate(4 * t);
    r.alloc.allocate(8 * t);
    r.alloc.allocate(8 * t);
    r.alloc.allocate((split.flashAttention ? 2 : 4) * split.cells * t);
    r.alloc.allocate(4 * std::uint64_t{outputs});
    // The lookup, the mixed path's rows and its DUP; layer 0's conv rows.
    const Block embeddings = r.take(e * t);
    r.alloc.release(tokens);
    const Block mixedRows = r.take(e * t);
    r.alloc.release(mixedTokens);
    r.take(e * t); // DUP
    r.drop(mixedEmbeddings, mixedRows);
    r.alloc.release(slots);
    const Block convRows = r.take(split.convStates * r.seqs);
    r.drop(embeddings, convRows);
    // The first attention layer: the GPU has taken the positions; K and V come over for the host cache,
    // Q for the CPU's attention.
    r.alloc.release(positions);
    const Block k = r.take(split.keyValues * t);
    const Block v = r.take(split.keyValues * t);
    const Block q = r.take(split.queryValues * t);
    r.drop(k, v);
    if (split.flashAttention) {
        const Block attended = r.take(split.queryValues * t);
        r.drop(q, attended);
    } else {
        const Block values = r.alloc.allocate(split.valueCache); // V made contiguous
        const Block scores = r.alloc.allocate(4 * split.cells * t * split.heads);
        r.drop(q);
        const Block weighted = r.take(split.queryValues * t);
        r.alloc.release(values);
        r.alloc.release(scores);
        r.drop(weighted);
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

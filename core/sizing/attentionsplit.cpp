// The RPC servers' plans of llama-server 0.7.0 (b11669) for qwen2 and qwen3 over two
// ggml-rpc-server -d CPU, read node by node from the dumped graphs (scripts/alloc-plan/run-case.sh;
// the nodes of one buffer in order, with their sources and shapes). The allocator's rules are
// GraphReplay's.
#include "core/sizing/attentionsplit.h"

#include "core/sizing/graphreplay.h"
#include "core/sizing/kvrotation.h"

#include <algorithm>

namespace llamafit {
namespace {

using Id = GraphReplay::Id;
using Layout = GraphReplay::Layout;
using namespace replay;

// What a device reads from elsewhere, each `copies` times. With more than one copy the scheduler
// flags every copy as an output, so none is ever freed or reused; a single copy is an ordinary leaf,
// freed after its last reader (measured: qwen2 on one RPC server, "39.51 MiB", where the mask and
// the embeddings die after block 0's first use of them).
class SplitInputs {
  public:
    SplitInputs(GraphReplay& graph, std::uint32_t copies) : m_graph(graph), m_copies(copies) {}
    // The copy the reserve's graph reads (the scheduler's copy 0); the others only take space.
    Id add(Layout layout) {
        Id first = 0;
        for (std::uint32_t c = 0; c < std::max<std::uint32_t>(m_copies, 1); ++c) {
            const Id id = m_graph.input(layout);
            if (m_copies > 1) {
                m_graph.markOutput(id);
            }
            first = c == 0 ? id : first;
        }
        return first;
    }

  private:
    GraphReplay& m_graph;
    std::uint32_t m_copies;
};

// A head-shaped tensor rotated by the cache's Hadamard matrix (kvrotation.h): a matrix product over
// the rows of one head, reshaped back.
Id rotated(GraphReplay& g, Id rotation, Id heads, Layout layout) {
    const std::uint64_t rows = layout.ne[1] * layout.ne[2] * layout.ne[3];
    const Id flat = g.reshape(heads, f32(layout.ne[0], rows));
    return g.reshape(g.node(f32(layout.ne[0], rows), {rotation, flat}), layout);
}

} // namespace

std::optional<AttentionSplitShape> attentionSplitShape(const ModelInfo& model, const KvPlan& kv,
                                                       const ServerSettings& settings, bool flashAttention) {
    // llama (Llama 2 and 3, Mistral) builds qwen2's graph without the projections' biases, which
    // are added in place there (src/models/llama.cpp).
    const bool qwen2 = model.architecture == "qwen2" || model.architecture == "llama";
    const bool qwen3 = model.architecture == "qwen3";
    const bool gemma3 = model.architecture == "gemma3";
    const std::size_t blocks = model.trunkLayerCount();
    if ((!qwen2 && !qwen3 && !gemma3) || model.isMoe() || kv.caches.empty() ||
        (!gemma3 && kv.caches.size() != 1) || blocks == 0 || model.layers.size() != blocks ||
        model.nextnLayerCount > 0) {
        return std::nullopt;
    }
    const LayerInfo& first = model.layers.front();
    AttentionSplitShape shape;
    for (std::size_t il = 0; il < blocks; ++il) {
        const LayerInfo& layer = model.layers[il];
        const std::optional<std::size_t> cache = kv.cacheOf(il);
        if (!layer.hasKv || !cache || layer.headCount != first.headCount ||
            layer.headCountKv != first.headCountKv || layer.keyHeadDim != first.keyHeadDim ||
            layer.valueHeadDim != first.valueHeadDim || layer.feedForwardLength != first.feedForwardLength) {
            return std::nullopt;
        }
        shape.layerCache.push_back(*cache);
    }
    if (first.headCount == 0 || first.keyHeadDim == 0 || first.valueHeadDim == 0) {
        return std::nullopt;
    }
    shape.embd = model.embeddingLength;
    shape.heads = first.headCount;
    shape.kvHeads = first.headCountKv;
    shape.keyHeadDim = first.keyHeadDim;
    shape.valueHeadDim = first.valueHeadDim;
    shape.feedForward = first.feedForwardLength;
    shape.vocabulary = model.vocabularySize;
    shape.normedHeads = qwen3 || gemma3;
    shape.gemma = gemma3;
    shape.flashAttention = flashAttention;
    for (const KvCacheEstimate& cache : kv.caches) {
        shape.cells.push_back(cache.cells);
        const KvRotations rotations = kvRotations(kvRotationShape(model, cache.swa), settings);
        if (gemma3 && (rotations.keys || rotations.values)) {
            return std::nullopt; // not read from a plan
        }
        shape.rotatedKeys = rotations.keys;
        shape.rotatedValues = rotations.values;
    }
    shape.streams = std::max<std::uint32_t>(kv.caches.front().streams, 1);
    return shape;
}

std::uint64_t attentionSplitDeviceBytes(const AttentionSplitShape& s, const AttentionSplit& split,
                                        std::uint64_t tokens, std::uint64_t outputs) {
    if (split.endBlock <= split.firstBlock || tokens == 0) {
        return 0;
    }
    const std::uint64_t t = tokens;
    const std::uint64_t queryValues = s.heads * s.keyHeadDim;
    const std::uint64_t attendedValues = s.heads * s.valueHeadDim;
    const Layout rows = f32(s.embd, t);
    GraphReplay g;
    SplitInputs inputs(g, split.copies);

    // The inputs in the order the split first reads them (the scheduler copies them in as it meets
    // them): the embeddings or the previous device's rows, the positions (build_inp_pos), per cache
    // its rotations, K and V row indices and KQ mask in the order the device's blocks first read
    // the caches, the residual where it comes last, the output ids (build_inp_out_ids).
    Id residual = 0;
    Id mixedEmbedding = 0;
    Id handedNorm = 0; // NormHandedOver: the first block's norm, run on the previous device
    Id lastHostOp = 0; // AfterHost: the last host block's output before its residual add
    Id embeddings = 0;
    Id rowScales = 0;
    switch (split.start) {
    case SplitStart::GraphStart:
        mixedEmbedding = inputs.add(rows);               // inp_mixed_embd
        inputs.add(rows);                                // the token rows it is mixed with
        inputs.add({8, {t, 1, 1, 1}});                   // inp_mixed_slots
        embeddings = inputs.add(rows);                   // the token embeddings
        rowScales = s.gemma ? inputs.add(f32(1, t)) : 0; // inp_scale_rows
        break;
    case SplitStart::AfterDevice:
        residual = inputs.add(rows);
        break;
    case SplitStart::NormHandedOver:
        handedNorm = inputs.add(rows);
        break;
    case SplitStart::AfterHost:
        lastHostOp = inputs.add(rows);
        residual = inputs.add(rows);
        break;
    }
    const Id positions = inputs.add({4, {t, 1, 1, 1}});
    struct CacheInputs {
        Id keyRotation = 0;
        Id valueRotation = 0;
        Id keyIndices = 0;
        Id valueIndices = 0;
        Id mask = 0;
    };
    std::vector<CacheInputs> caches(s.cells.size());
    std::vector<bool> cacheRead(s.cells.size(), false);
    const auto cacheOf = [&](std::uint32_t b) { return b < s.layerCache.size() ? s.layerCache[b] : 0; };
    for (std::uint32_t b = split.firstBlock; b < split.endBlock; ++b) {
        const std::size_t c = cacheOf(b);
        if (c >= caches.size() || cacheRead[c]) {
            continue;
        }
        cacheRead[c] = true;
        CacheInputs& in = caches[c];
        in.keyRotation = s.rotatedKeys ? inputs.add(f32(s.keyHeadDim, s.keyHeadDim)) : 0;
        in.valueRotation = s.rotatedValues ? inputs.add(f32(s.valueHeadDim, s.valueHeadDim)) : 0;
        in.keyIndices = inputs.add({8, {t, 1, 1, 1}});
        // Without flash attention V is stored transposed, one index per value (llama-kv-cache.cpp).
        in.valueIndices = inputs.add({8, {s.flashAttention ? t : t * s.kvHeads * s.valueHeadDim, 1, 1, 1}});
        in.mask = inputs.add({s.flashAttention ? 2u : 4u, {s.cells[c], t, 1, 1}}); // f16 for flash attention
    }
    if (split.start == SplitStart::NormHandedOver) {
        residual = inputs.add(rows); // the previous device's last block, met at its residual add
    }
    const Id outputIds = split.outputHere ? inputs.add({4, {outputs, 1, 1, 1}}) : 0;
    if (split.start == SplitStart::GraphStart) {
        // The DUP of the mixed embeddings, and the SET_ROWS view that keeps it to the end.
        g.view(g.node(rows, {mixedEmbedding}));
        // Gemma scales each token's embedding row (a MUL: in place unless the input is a kept copy).
        residual = s.gemma ? g.node(rows, {embeddings, rowScales}, kInPlace) : embeddings;
    } else if (split.start == SplitStart::AfterHost) {
        residual = g.node(rows, {lastHostOp, residual}, kInPlace);
    }

    for (std::uint32_t b = split.firstBlock; b < split.endBlock; ++b) {
        const bool outputRows = split.outputHere && b + 1 == split.endBlock;
        const Id norm = split.start == SplitStart::NormHandedOver && b == split.firstBlock
                            ? handedNorm
                            : g.node(rows, {residual}, kInPlace);
        const Id attnNorm = g.node(rows, {norm}, kInPlace);
        const Layout queryHeads = f32(s.keyHeadDim, s.heads, t);
        const Layout keyHeads = f32(s.keyHeadDim, s.kvHeads, t);
        const Layout valueHeads = f32(s.valueHeadDim, s.kvHeads, t);
        // A projection (its bias added in place) seen as heads; qwen3 and gemma3 norm each head (a
        // new tensor: a view is never taken over) and scale it in place; RoPE runs in place on that.
        const auto projection = [&](std::uint64_t values) { return g.node(f32(values, t), {attnNorm}); };
        const auto headsOf = [&](Id projected, Layout heads, bool roped) {
            Id out = g.reshape(projected, heads);
            if (roped && s.normedHeads) {
                out = g.node(heads, {g.node(heads, {out}, kInPlace)}, kInPlace);
            }
            return roped ? g.node(heads, {out, positions}, kInPlace) : out;
        };
        const CacheInputs& cache = caches[cacheOf(b)];
        const std::uint64_t cells = s.cells[cacheOf(b)];
        // build_attn expands Q, then V, then K into the graph; Gemma's builder has Q, K and V
        // computed before it, and scales Q (in place) after RoPE. ggml-vulkan's graph_optimize
        // moves the three projections of the normed rows next to each other, ahead of the rest.
        Id queryProjection = 0;
        Id keyProjection = 0;
        Id valueProjection = 0;
        if (split.projectionsTogether) {
            queryProjection = projection(queryValues);
            if (s.gemma) {
                keyProjection = projection(s.kvHeads * s.keyHeadDim);
            }
            valueProjection = projection(s.kvHeads * s.valueHeadDim);
            if (!s.gemma) {
                keyProjection = projection(s.kvHeads * s.keyHeadDim);
            }
        }
        const auto projectionOf = [&](Id together, std::uint64_t values) {
            return split.projectionsTogether ? together : projection(values);
        };
        Id query = headsOf(projectionOf(queryProjection, queryValues), queryHeads, true);
        if (s.gemma) {
            query = g.node(queryHeads, {query}, kInPlace);
        }
        if (s.rotatedKeys) {
            query = rotated(g, cache.keyRotation, query, queryHeads);
        }
        Id key = 0;
        if (s.gemma) {
            key = headsOf(projectionOf(keyProjection, s.kvHeads * s.keyHeadDim), keyHeads, true);
        }
        Id value = headsOf(projectionOf(valueProjection, s.kvHeads * s.valueHeadDim), valueHeads, false);
        if (s.rotatedValues) {
            value = rotated(g, cache.valueRotation, value, valueHeads);
        }
        if (split.projectionsTogether) {
            g.write({g.view(value), cache.valueIndices}); // stored before K is normed
        }
        if (!s.gemma) {
            key = headsOf(projectionOf(keyProjection, s.kvHeads * s.keyHeadDim), keyHeads, true);
        }
        if (s.rotatedKeys) {
            key = rotated(g, cache.keyRotation, key, keyHeads);
        }
        g.write({g.view(key), cache.keyIndices}); // set_rows into the cache
        if (!split.projectionsTogether) {
            g.write({g.view(value), cache.valueIndices});
        }
        const Id queryPermuted = g.view(g.view(query));
        Id attended = 0;
        if (s.flashAttention) {
            const Id out = g.node(f32(s.valueHeadDim, s.heads, t), {queryPermuted, cache.mask});
            attended = g.reshape(out, f32(attendedValues, t));
        } else {
            const Layout scores = f32(cells, t / s.streams, s.heads, s.streams);
            const Id kq = g.node(scores, {queryPermuted});
            const Id softmax = g.node(scores, {kq, cache.mask}, kInPlace);
            const Id kqv = g.node(f32(s.valueHeadDim, t / s.streams, s.heads, s.streams), {softmax});
            attended = g.node(f32(attendedValues, t), {g.view(kqv)}); // cont of the permuted heads
        }
        if (s.rotatedValues) {
            attended = rotated(g, cache.valueRotation, attended, f32(attendedValues, t));
        }
        Id projected = g.node(rows, {attended});
        Id shortcut = residual;
        Layout blockRows = rows;
        if (outputRows) {
            // The last block keeps the output rows only (get_rows with inp_out_ids).
            blockRows = f32(s.embd, outputs);
            projected = g.node(blockRows, {projected, outputIds});
        }
        // Gemma norms a block's output before its residual add: RMS norm and weight, in place.
        const auto postNormed = [&](Id x) {
            return s.gemma ? g.node(blockRows, {g.node(blockRows, {x}, kInPlace)}, kInPlace) : x;
        };
        projected = postNormed(projected);
        if (outputRows) {
            shortcut = g.node(blockRows, {residual, outputIds});
        }
        const Id ffnInput = g.node(blockRows, {projected, shortcut}, kInPlace);
        const Id ffnNorm = g.node(blockRows, {g.node(blockRows, {ffnInput}, kInPlace)}, kInPlace);
        const std::uint64_t ffnRows = blockRows.ne[1];
        const Id gate = g.node(f32(s.feedForward, ffnRows), {ffnNorm});
        const Id up = g.node(f32(s.feedForward, ffnRows), {ffnNorm});
        const Id glu = g.node(f32(s.feedForward, ffnRows), {gate, up}); // SwiGLU or GEGLU
        residual = g.node(blockRows, {postNormed(g.node(blockRows, {glu})), ffnInput}, kInPlace);
    }
    if (!split.outputHere) {
        // What the next device reads: the residual and, unpinned, the next block's norm; the
        // scheduler's views of them are their last readers here.
        if (split.handsNormOn) {
            g.write({g.node(rows, {residual}, kInPlace)});
        }
        g.write({residual});
    }
    if (split.outputHere) {
        const Layout out = f32(s.embd, outputs);
        const Id normed = g.node(out, {g.node(out, {residual}, kInPlace)}, kInPlace);
        g.markOutput(normed);
        g.markOutput(g.node(f32(s.vocabulary, outputs), {normed}));
    }
    return g.plannedBytes();
}

} // namespace llamafit

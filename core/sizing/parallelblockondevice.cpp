// The sequence below is Vulkan0's plan of llama-server 0.7.0 (b11669) on lavapipe for
// cohere2_l4_ngl_all, read with scripts/alloc-plan/galloc_replay.py; the rules are
// recurrentreplay.h's (a norm and a ROPE of a matmul result are new tensors, adds run in place).
#include "core/sizing/parallelblockondevice.h"

#include "core/sizing/allocatorreplay.h"
#include "core/sizing/kvrotation.h"

#include <algorithm>

namespace llamafit {

std::optional<ParallelBlockShape> parallelBlockShape(const ModelInfo& model, const KvPlan& kv,
                                                     const ServerSettings& settings, bool kqOnCpu) {
    const std::size_t blocks = model.blockCount - model.nextnLayerCount;
    if (model.architecture != "cohere2" || model.layers.size() < blocks || blocks == 0 || kv.caches.empty() ||
        kv.layerInSwaCache.size() < blocks) {
        return std::nullopt;
    }
    const LayerInfo& first = model.layers.front();
    ParallelBlockShape shape;
    shape.embd = model.embeddingLength;
    shape.queryValues = std::uint64_t{first.headCount} * first.keyHeadDim;
    shape.keyValues = std::uint64_t{first.headCountKv} * first.keyHeadDim;
    shape.feedForward = first.feedForwardLength;
    for (const auto& cache : kv.caches) {
        shape.maskCells.push_back(cache.cells);
        shape.attentionFirst = shape.attentionFirst || cache.streams > 1;
    }
    const KvRotations rotations = kvRotations(kvRotationShape(model, false), settings);
    shape.rotationBytes = rotations.bytes;
    shape.rotatedKeys = rotations.keys;
    shape.rotatedValues = rotations.values;
    shape.kqOnCpu = kqOnCpu;
    shape.valueRow = std::uint64_t{first.headCountKv} * first.valueHeadDim;
    if ((shape.attentionFirst || kqOnCpu) && shape.rotationBytes > 0) {
        return std::nullopt; // several streams or KQ on the CPU with a quantized cache: not read from a plan
    }
    for (std::size_t il = 0; il < blocks; ++il) {
        const LayerInfo& layer = model.layers[il];
        const std::optional<std::size_t> cache = kv.cacheOf(il);
        if (!layer.hasKv || !cache || layer.headCount != first.headCount ||
            layer.headCountKv != first.headCountKv || layer.feedForwardLength != first.feedForwardLength) {
            return std::nullopt;
        }
        shape.layerCache.push_back(*cache);
        shape.layerRoped.push_back(kv.layerInSwaCache[il]); // the global layers have no positions
    }
    return shape;
}

std::uint64_t parallelBlockDeviceBytes(const ParallelBlockShape& s, std::uint64_t tokens,
                                       std::uint64_t outputs) {
    const std::size_t blocks = s.layerCache.size();
    if (blocks == 0 || tokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    const std::uint64_t t = tokens;
    AllocatorReplay alloc;
    const auto rows = [&](std::uint64_t values) { return alloc.allocate(4 * values * t); };
    const auto lastUse = [&](auto&& uses) {
        std::size_t last = 0;
        for (std::size_t b = 0; b < blocks; ++b) {
            last = uses(b) ? b : last;
        }
        return last;
    };
    const std::size_t lastRoped = lastUse([&](std::size_t b) { return static_cast<bool>(s.layerRoped[b]); });

    // The graph inputs, all copied at the start of the one split: the mixed path's rows and slot
    // ids, the token embeddings (the residual), positions, per cache the K and V row indices and the
    // f16 mask, the output ids; then the DUP the mixed path keeps.
    const Block mixed = rows(s.embd);
    const Block mixedRows = rows(s.embd);
    const Block slots = alloc.allocate(8 * t);
    Block residual = rows(s.embd);
    const Block positions = alloc.allocate(4 * t);
    std::vector<Block> keyIndices;
    std::vector<Block> valueIndices;
    std::vector<Block> masks;
    std::vector<std::size_t> cacheLastLayer;
    keyIndices.resize(s.maskCells.size());
    valueIndices.resize(s.maskCells.size());
    masks.resize(s.maskCells.size());
    // With KQ on the CPU a cache's row indices arrive with the split before its first layer.
    const auto cacheIndices = [&](std::size_t c) {
        keyIndices[c] = alloc.allocate(8 * t);
        valueIndices[c] = alloc.allocate(8 * t * (s.kqOnCpu ? s.valueRow : 1));
    };
    for (std::size_t c = 0; c < s.maskCells.size(); ++c) {
        cacheLastLayer.push_back(lastUse([&](std::size_t b) { return s.layerCache[b] == c; }));
        if (s.kqOnCpu) {
            if (c == s.layerCache.front()) {
                cacheIndices(c);
            }
            continue;
        }
        alloc.allocate(s.rotationBytes); // a quantized cache's rotation matrices (kvrotation.h)
        cacheIndices(c);
        masks[c] = alloc.allocate(2 * s.maskCells[c] * t);
    }
    if (!s.kqOnCpu) {
        alloc.allocate(4 * outputs);
    }
    rows(s.embd); // DUP
    alloc.release(mixed);

    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t cache = s.layerCache[b];
        const bool lastOfCache = cacheLastLayer[cache] == b;
        const bool last = b + 1 == blocks;
        const Block norm = rows(s.embd); // its weight's MUL in place
        if (b == 0) {
            alloc.release(mixedRows);
            alloc.release(slots);
        }
        Block q = rows(s.queryValues);
        Block k = rows(s.keyValues);
        Block v = rows(s.keyValues);
        if (s.layerRoped[b]) {
            const Block qRoped = rows(s.queryValues);
            alloc.release(q);
            q = qRoped;
            const Block kRoped = rows(s.keyValues);
            alloc.release(k);
            k = kRoped;
            if (b == lastRoped) {
                alloc.release(positions);
            }
        }
        // A quantized cache's Hadamard rotations of V, Q and K (kvrotation.h).
        if (s.rotatedValues) {
            const Block rotated = rows(s.keyValues);
            alloc.release(v);
            v = rotated;
        }
        if (s.rotatedKeys) {
            const Block rotatedQuery = rows(s.queryValues);
            alloc.release(q);
            q = rotatedQuery;
            const Block rotatedKey = rows(s.keyValues);
            alloc.release(k);
            k = rotatedKey;
        }
        if (s.rotatedValues || s.rotatedKeys) {
            alloc.release(v); // both stored into the cache
            alloc.release(k);
        } else {
            alloc.release(k); // stored into the cache
            if (lastOfCache) {
                alloc.release(keyIndices[cache]);
            }
            alloc.release(v);
            if (lastOfCache) {
                alloc.release(valueIndices[cache]);
            }
        }
        if (s.kqOnCpu) {
            // Q leaves for the CPU; the permuted result comes back and is made contiguous.
            alloc.release(q);
            const Block copied = rows(s.queryValues);
            if (!last && s.layerCache[b + 1] != cache && keyIndices[s.layerCache[b + 1]].bytes == 0) {
                cacheIndices(s.layerCache[b + 1]);
            }
            const Block outputIds = last ? alloc.allocate(4 * outputs) : Block{};
            q = rows(s.queryValues); // the attention's output, in Q's place below
            alloc.release(copied);
            if (last) {
                alloc.release(outputIds); // only the output rows go on
                break;
            }
        }
        if (last) {
            // Only the output rows go on to the FFN, on this device; attention keeps every token.
            const Block outputRows = alloc.allocate(4 * s.embd * outputs);
            alloc.release(norm);
            const Block attended = rows(s.queryValues);
            alloc.release(q);
            alloc.release(outputRows);
            rows(s.embd); // the attention's output projection
            alloc.release(attended);
            break;
        }
        Block attended{};
        const auto attend = [&] {
            if (s.kqOnCpu) {
                attended = q; // already back from the CPU
                return;
            }
            attended = rows(s.queryValues);
            alloc.release(q);
            if (lastOfCache) {
                alloc.release(masks[cache]);
            }
        };
        if (s.attentionFirst) {
            attend();
        }
        const Block gate = rows(s.feedForward);
        const Block up = rows(s.feedForward);
        alloc.release(norm);
        if (!s.attentionFirst) {
            attend();
        }
        const Block glu = rows(s.feedForward);
        alloc.release(gate);
        alloc.release(up);
        Block out{};
        Block projected{};
        if (s.attentionFirst || s.kqOnCpu) {
            projected = rows(s.embd);
            alloc.release(attended);
            out = rows(s.embd); // ffn_out; the residual and the attention added in place
            alloc.release(glu);
            alloc.release(residual);
        } else {
            out = rows(s.embd);
            alloc.release(glu);
            alloc.release(residual);
            if (s.rotatedValues) {
                const Block unrotated = rows(s.queryValues); // the attention's output rotated back
                alloc.release(attended);
                attended = unrotated;
            }
            projected = rows(s.embd);
            alloc.release(attended);
        }
        alloc.release(projected);
        residual = out;
    }
    return alloc.peakBytes();
}

} // namespace llamafit

// Vulkan0's plan of llama-server 0.7.0 (b11669) on lavapipe for gemma3 -ngl all -fa off, read with
// scripts/alloc-plan/sequence.py; the rules are recurrentreplay.h's (a norm and a matrix product are
// new tensors; the norms' weights, RoPE on a norm's output, the scale, soft_max and the adds run in place).
#include "core/sizing/gemmaondevice.h"

#include "core/sizing/allocatorreplay.h"
#include "core/sizing/kvrotation.h"

#include <algorithm>

namespace llamafit {

std::optional<GemmaShape> gemmaShape(const ModelInfo& model, const KvPlan& kv, const ServerSettings& settings,
                                     bool flashAttention) {
    const std::size_t blocks = model.trunkLayerCount();
    if (model.architecture != "gemma3" || flashAttention || blocks == 0 || model.layers.size() < blocks ||
        kv.caches.empty() || kv.layerInSwaCache.size() < blocks) {
        return std::nullopt;
    }
    const LayerInfo& first = model.layers.front();
    GemmaShape shape;
    shape.embd = model.embeddingLength;
    shape.heads = first.headCount;
    shape.queryValues = std::uint64_t{first.headCount} * first.keyHeadDim;
    shape.keyValues = std::uint64_t{first.headCountKv} * first.keyHeadDim;
    shape.feedForward = first.feedForwardLength;
    for (const auto& cache : kv.caches) {
        shape.maskCells.push_back(cache.cells);
        const KvRotations rotations = kvRotations(kvRotationShape(model, cache.swa), settings);
        if (rotations.values) {
            return std::nullopt;
        }
        shape.rotationBytes.push_back(rotations.bytes);
        shape.rotatedKeys = shape.rotatedKeys || rotations.keys;
    }
    for (std::size_t il = 0; il < blocks; ++il) {
        const LayerInfo& layer = model.layers[il];
        const std::optional<std::size_t> cache = kv.cacheOf(il);
        if (!layer.hasKv || !cache || layer.headCount != first.headCount ||
            layer.headCountKv != first.headCountKv || layer.keyHeadDim != first.keyHeadDim ||
            layer.valueHeadDim != first.keyHeadDim || layer.feedForwardLength != first.feedForwardLength) {
            return std::nullopt;
        }
        shape.layerCache.push_back(*cache);
    }
    return shape;
}

std::uint64_t gemmaDeviceBytes(const GemmaShape& s, std::uint64_t tokens, std::uint64_t outputs) {
    const std::size_t blocks = s.layerCache.size();
    if (blocks == 0 || tokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    const std::uint64_t t = tokens;
    AllocatorReplay alloc;
    const auto rows = [&](std::uint64_t values) { return alloc.allocate(4 * values * t); };

    // The graph inputs: the mixed path's rows and slot ids, the scaled embeddings (the residual), the
    // row scales, positions, per cache the K and V row indices (one V index per value) and the f32
    // mask, the output ids; then the DUP the mixed path keeps.
    const Block mixed = rows(s.embd);
    const Block mixedRows = rows(s.embd);
    const Block slots = alloc.allocate(8 * t);
    Block residual = rows(s.embd);
    const Block scaleRows = rows(1);
    const Block positions = alloc.allocate(4 * t);
    std::vector<Block> keyIndices;
    std::vector<Block> valueIndices;
    std::vector<Block> masks;
    std::vector<std::size_t> cacheLastLayer;
    for (std::size_t c = 0; c < s.maskCells.size(); ++c) {
        alloc.allocate(c < s.rotationBytes.size() ? s.rotationBytes[c] : 0);
        keyIndices.push_back(alloc.allocate(8 * t));
        valueIndices.push_back(alloc.allocate(8 * t * s.keyValues));
        masks.push_back(alloc.allocate(4 * s.maskCells[c] * t));
        std::size_t last = 0;
        for (std::size_t b = 0; b < blocks; ++b) {
            last = s.layerCache[b] == c ? b : last;
        }
        cacheLastLayer.push_back(last);
    }
    const Block outputIds = alloc.allocate(4 * outputs);
    rows(s.embd); // DUP
    alloc.release(mixed);
    alloc.release(scaleRows);
    alloc.release(mixedRows);
    alloc.release(slots);

    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t cache = s.layerCache[b];
        const bool lastOfCache = cacheLastLayer[cache] == b;
        const bool last = b + 1 == blocks;
        const Block norm = rows(s.embd);
        const Block q = rows(s.queryValues);
        const Block k = rows(s.keyValues);
        const Block v = rows(s.keyValues);
        alloc.release(norm);
        Block query = rows(s.queryValues); // q norm; RoPE and the scale in place
        alloc.release(q);
        Block key = rows(s.keyValues); // k norm; RoPE in place
        alloc.release(k);
        if (s.rotatedKeys) {
            const Block rotatedQuery = rows(s.queryValues);
            alloc.release(query);
            query = rotatedQuery;
            const Block rotatedKey = rows(s.keyValues);
            alloc.release(key);
            key = rotatedKey;
        }
        if (last) {
            alloc.release(positions);
        }
        alloc.release(key); // stored into the cache
        if (lastOfCache) {
            alloc.release(keyIndices[cache]);
        }
        alloc.release(v);
        if (lastOfCache) {
            alloc.release(valueIndices[cache]);
        }
        const Block residualRows = last ? alloc.allocate(4 * s.embd * outputs) : Block{};
        if (last) {
            alloc.release(residual);
        }
        const Block kq = alloc.allocate(4 * s.maskCells[cache] * t * s.heads); // soft_max in place
        alloc.release(query);
        if (lastOfCache) {
            alloc.release(masks[cache]);
        }
        const Block weighted = rows(s.queryValues);
        alloc.release(kq);
        const Block attended = rows(s.queryValues); // made contiguous
        alloc.release(weighted);
        const Block projected = rows(s.embd); // post norm and the residual add in place
        alloc.release(attended);
        if (last) {
            alloc.release(projected); // only the output rows go on
            alloc.release(outputIds);
            alloc.release(residualRows);
            break;
        }
        alloc.release(residual);
        const Block ffnNorm = rows(s.embd);
        const Block gate = rows(s.feedForward);
        const Block up = rows(s.feedForward);
        alloc.release(ffnNorm);
        const Block glu = rows(s.feedForward);
        alloc.release(gate);
        alloc.release(up);
        const Block out = rows(s.embd); // post norm and the residual add in place
        alloc.release(glu);
        alloc.release(projected);
        residual = out;
    }
    return alloc.peakBytes();
}

} // namespace llamafit

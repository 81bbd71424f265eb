// Vulkan0's plans of llama-server 0.7.0 (b11669) on lavapipe for qwen3 -ngl all, read with
// scripts/alloc-plan/sequence.py; the rules are recurrentreplay.h's (a norm and a matrix product
// are new tensors; RoPE runs in place on a norm's output; adds run in place).
#include "core/sizing/normedattentionondevice.h"

#include "core/sizing/kvrotation.h"
#include "core/sizing/recurrentreplay.h"

namespace llamafit {

std::optional<NormedAttentionShape> normedAttentionShape(const ModelInfo& model, const KvPlan& kv,
                                                         const ServerSettings& settings) {
    const std::uint32_t blocks = model.blockCount - model.nextnLayerCount;
    if (model.architecture != "qwen3" || kv.caches.size() != 1 || model.layers.size() < blocks ||
        blocks == 0) {
        return std::nullopt;
    }
    const LayerInfo& first = model.layers.front();
    NormedAttentionShape shape;
    shape.embd = model.embeddingLength;
    shape.queryValues = std::uint64_t{first.headCount} * first.keyHeadDim;
    shape.keyValues = std::uint64_t{first.headCountKv} * first.keyHeadDim;
    shape.feedForward = first.feedForwardLength;
    shape.maskCells = kv.caches.front().cells;
    const KvRotations rotations = kvRotations(kvRotationShape(model, false), settings);
    shape.rotationBytes = rotations.bytes;
    shape.rotatedKeys = rotations.keys;
    shape.rotatedValues = rotations.values;
    shape.blocks = blocks;
    return shape;
}

std::uint64_t normedAttentionDeviceBytes(const NormedAttentionShape& s, std::uint64_t tokens,
                                         std::uint64_t outputs) {
    if (s.blocks == 0 || tokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r;
    r.tokens = tokens;
    const std::uint64_t t = tokens;
    // The graph inputs: positions, the rotation matrices, K and V row indices, the f16 mask, the
    // output ids.
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd, [] {},
        [&] {
            r.alloc.allocate(4 * t);
            r.alloc.allocate(s.rotationBytes);
            replayCacheInputs(r, s.maskCells, s.keyValues, true);
            r.alloc.allocate(4 * outputs);
        });
    Block residual = start.residual;
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
        const Block norm = r.take(s.embd * t); // its weight's MUL in place
        if (b == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        const Block q = r.take(s.queryValues * t);
        const Block v = r.take(s.keyValues * t);
        const Block k = r.take(s.keyValues * t);
        r.drop(norm);
        Block query = r.take(s.queryValues * t); // q norm; its weight's MUL and RoPE in place
        r.drop(q);
        Block value{};
        if (s.rotatedValues) {
            value = r.take(s.keyValues * t);
        }
        r.drop(v);                           // V (or its rotation) is stored into the cache
        Block key = r.take(s.keyValues * t); // k norm, RoPE in place
        r.drop(k);
        if (s.rotatedKeys) {
            const Block rotatedQuery = r.take(s.queryValues * t);
            r.drop(query);
            query = rotatedQuery;
            const Block rotatedKey = r.take(s.keyValues * t);
            r.drop(key);
            key = rotatedKey;
        }
        r.drop(key, value); // stored into the cache
        Block attended = r.take(s.queryValues * t);
        r.drop(query);
        if (s.rotatedValues) {
            const Block unrotated = r.take(s.queryValues * t);
            r.drop(attended);
            attended = unrotated;
        }
        const Block projected = r.take(s.embd * t);
        r.drop(attended);
        if (b + 1 == s.blocks) {
            break; // the FFN runs on the output rows
        }
        r.drop(residual); // the residual add in place into the projection
        // The FFN: gate, up, swiglu, down; the residual add in place into its output.
        residual = replayGatedFeedForward(r, s.embd, s.feedForward, r.take(s.embd * t));
        r.drop(projected);
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

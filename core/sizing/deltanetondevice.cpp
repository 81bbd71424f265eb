// The sequence below was read from Vulkan0's plan of llama-server 0.7.0 (b11669) on lavapipe,
// qwen35moe_l8 -c 4096 -np 1 -fa on -ngl all ("Vulkan0 compute buffer size = 72.10 MiB"), with
// galloc_replay.py. The allocation rules are recurrentreplay.h's.
#include "core/sizing/deltanetondevice.h"

#include "core/sizing/kvrotation.h"

#include "core/gguf/ggmltype.h"
#include "core/sizing/recurrentreplay.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>
#include <initializer_list>

namespace llamafit {
namespace {

using Block = AllocatorReplay::Block;

// The shared expert's n_ff, from blk.N.ffn_up_shexp ([n_embd, n_ff]).
std::uint64_t sharedExpertFeedForward(const ModelInfo& model) {
    for (const auto& tensor : model.tensors) {
        if (tensor.name.ends_with(".ffn_up_shexp.weight") && tensor.rowValues > 0) {
            return tensor.bytes / ggmlRowBytes(tensor.type, tensor.rowValues);
        }
    }
    return 0;
}

// The fused op over its `inputs` (which die there), then z (`dropBeforeZ` dies as it is
// projected), the gated RMS norm of y with silu(z) and the output projection, in Vulkan's order.
void opAndOutput(RecurrentReplay& r, const RecurrentBlockShape& s, std::initializer_list<Block> inputs,
                 Block dropBeforeZ) {
    const std::uint64_t t = r.tokens;
    const Block out = r.take(s.inner * t + s.state * s.inner * r.seqs); // y and the final states
    for (const Block input : inputs) {
        r.drop(input);
    }
    const Block z = r.take(s.inner * t);
    r.drop(dropBeforeZ);
    const Block normed = r.take(s.inner * t);
    r.drop(out);
    const Block zSilu = r.take(s.inner * t);
    r.drop(z, zSilu); // the product goes in place into `normed`
    const Block projected = r.take(s.embd * t);
    r.drop(normed);
    r.drop(projected); // a reshaped view: the residual add takes over the residual
}

// Qwen3.5's delta net (separate qkv and z projections) from its block input `norm` to the
// output projection; `convRows` were taken in the block before, unless invalid.
void separateProjections(RecurrentReplay& r, const RecurrentBlockShape& s, Block norm, Block convRows,
                         bool convRowsTaken) {
    const std::uint64_t t = r.tokens;
    const std::uint64_t conv = s.inner + 2 * s.groups * s.state;
    const Block qkv = r.take(conv * t);
    if (!convRowsTaken) {
        convRows = r.take((s.convKernel - 1) * conv * r.seqs);
    }
    const Block convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
    r.drop(convRows, qkv);
    const Block states = r.take(s.state * s.inner * r.seqs);
    const Block convOut = r.take(conv * t);
    r.drop(convX);
    const Block alpha = r.take(s.heads * t);
    const Block q = r.take(s.groups * s.state * t); // l2 norms, scale in place
    const Block k = r.take(s.groups * s.state * t);
    const Block gate = r.take(s.heads * t); // alpha + dt bias; softplus, * A in place
    r.drop(alpha);
    const Block betaRaw = r.take(s.heads * t);
    const Block beta = r.take(s.heads * t);
    r.drop(betaRaw);
    opAndOutput(r, s, {q, k, convOut, gate, beta, states}, norm);
}

// Qwen3-Next's delta net: one qkvz projection whose q, k and v are made contiguous and
// concatenated again; q and k are repeated from the key heads to the value heads.
void fusedProjection(RecurrentReplay& r, const RecurrentBlockShape& s, Block norm, Block convRows,
                     bool convRowsTaken) {
    const std::uint64_t t = r.tokens;
    const std::uint64_t qk = s.groups * s.state;
    const std::uint64_t conv = s.inner + 2 * qk;
    const Block qkvz = r.take((2 * qk + 2 * s.inner) * t); // z stays a view of it
    if (!convRowsTaken) {
        convRows = r.take((s.convKernel - 1) * conv * r.seqs);
    }
    const Block qFlat = r.take(qk * t);
    const Block kFlat = r.take(qk * t);
    const Block vFlat = r.take(s.inner * t);
    const Block qkPair = r.take(2 * qk * t);
    r.drop(qFlat, kFlat);
    // The slots' states: here when the conv rows came with the block before (Vulkan's node order).
    Block states = convRowsTaken ? r.take(s.state * s.inner * r.seqs) : Block{};
    const Block qkv = r.take(conv * t);
    r.drop(qkPair, vFlat);
    const Block convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
    r.drop(convRows, qkv);
    if (!convRowsTaken) {
        states = r.take(s.state * s.inner * r.seqs);
    }
    const Block convOut = r.take(conv * t);
    r.drop(convX);
    const Block qNorm = r.take(qk * t);
    const Block kNorm = r.take(qk * t);
    const Block ba = r.take(2 * s.heads * t);
    r.drop(norm);
    const Block gate = r.take(s.heads * t); // cont(a); + dt bias, softplus, * A in place
    const Block q = r.take(s.state * s.heads * t);
    r.drop(qNorm);
    const Block k = r.take(s.state * s.heads * t);
    r.drop(kNorm);
    const Block beta = r.take(s.heads * t);
    r.drop(ba);
    opAndOutput(r, s, {q, k, convOut, gate, beta, states}, qkvz);
}

} // namespace

std::optional<DeltaNetOnDeviceShape> deltaNetOnDeviceShape(const ModelInfo& model) {
    const RecurrentBlockShape block = recurrentBlockShape(model);
    const bool qwen35 = model.architecture == "qwen35moe" && block.kind == RecurrentBlockKind::DeltaNet;
    const bool qwen3Next =
        model.architecture == "qwen3next" && block.kind == RecurrentBlockKind::DeltaNetFusedQkvz;
    if ((!qwen35 && !qwen3Next) || model.expertCount == 0 || model.expertUsedCount == 0) {
        return std::nullopt;
    }
    DeltaNetOnDeviceShape shape;
    shape.block = block;
    shape.positionsPerToken = qwen35 ? 4 : 1;
    shape.expertSumFirst = qwen3Next;
    shape.experts = model.expertCount;
    shape.expertsUsed = model.expertUsedCount;
    shape.sharedFeedForward = sharedExpertFeedForward(model);
    const std::uint32_t blocks = model.blockCount - model.nextnLayerCount;
    for (std::uint32_t il = 0; il < blocks && il < model.layers.size(); ++il) {
        const LayerInfo& layer = model.layers[il];
        const bool attention = !layer.recurrent && layer.hasKv;
        shape.attentionBlocks.push_back(attention);
        if (attention && shape.queryValues == 0) {
            shape.heads = layer.headCount;
            shape.queryValues = std::uint64_t{layer.headCount} * layer.keyHeadDim;
            shape.keyValues = std::uint64_t{layer.headCountKv} * layer.keyHeadDim;
        }
    }
    if (shape.sharedFeedForward == 0 || shape.queryValues == 0) {
        return std::nullopt;
    }
    return shape;
}

QuantizedKeyAttention quantizedKeyAttention(const ModelInfo& model, const DeltaNetOnDeviceShape& shape,
                                            const ServerSettings& settings, bool flashAttention,
                                            Backend backend) {
    const KvRotations rotations = kvRotations(kvRotationShape(model, false), settings);
    // The K view is contiguous in dims 0 and 1 only with one KV head.
    const bool severalKvHeads = shape.keyValues * shape.heads > shape.queryValues;
    QuantizedKeyAttention keys;
    keys.quantizedKey = backend == Backend::Vulkan && !flashAttention && rotations.keys && severalKvHeads;
    keys.keyRotationBytes = keys.quantizedKey ? rotations.bytes : 0;
    return keys;
}

std::uint64_t quantizedKeyHostBytes(const DeltaNetOnDeviceShape& shape, std::uint64_t reserveTokens,
                                    std::uint64_t cells) {
    return 4 * reserveTokens * cells * shape.heads;
}

std::uint64_t deltaNetOnDeviceComputeBytes(const DeltaNetOnDeviceShape& shape, std::uint32_t ubatchTokens,
                                           std::uint32_t sequences, std::uint64_t cells, bool flashAttention,
                                           const QuantizedKeyAttention& keys) {
    const RecurrentBlockShape& s = shape.block;
    if (shape.attentionBlocks.empty() || ubatchTokens == 0) {
        return 0;
    }
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t conv = s.inner + 2 * s.groups * s.state; // the conv channels
    const std::uint64_t blocks = shape.attentionBlocks.size();
    const auto firstAttention = std::find(shape.attentionBlocks.begin(), shape.attentionBlocks.end(), true);
    const std::uint64_t firstAttentionBlock =
        static_cast<std::uint64_t>(firstAttention - shape.attentionBlocks.begin());

    // The graph start as in mambaondevice.cpp, with the state-copy ids.
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd, [] {},
        [&] {
            r.alloc.allocate(4 * r.seqs); /* rs_s_copy */
        });
    Block residual = start.residual;

    Block convRows{}; // a delta-net block's conv states (get_rows), taken in the block before
    bool convRowsTaken = false;
    const bool kqOnCpu = !flashAttention && keys.quantizedKey;
    Block mask{}; // with KQ on the CPU: the f32 mask, copied at its first soft_max
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const bool last = b + 1 == blocks;
        const Block norm = r.take(s.embd * t); // attn_norm, its weight's MUL in place
        if (b == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        if (shape.attentionBlocks[b]) {
            // Gated attention: Q with its gate in one projection, q/k norms, flash attention, the
            // sigmoid gate in place on the contiguous gate, the output projection.
            const Block queryAndGate = r.take(2 * shape.queryValues * t);
            const Block v = r.take(shape.keyValues * t);
            const Block k = r.take(shape.keyValues * t);
            r.drop(norm);
            const Block q = r.take(shape.queryValues * t);
            Block gated;
            if (kqOnCpu) {
                // Q and K rotated (kvrotation.h); KQ on the CPU, its product back for soft_max and KQV.
                const Block kNormed = r.take(shape.keyValues * t);
                r.drop(k);
                const Block qRotated = r.take(shape.queryValues * t);
                r.drop(q);
                const Block kRotated = r.take(shape.keyValues * t);
                r.drop(kNormed);
                r.drop(kRotated, v);                                  // stored into the cache
                r.drop(qRotated);                                     // to the CPU for KQ
                const Block scores = r.take(cells * t * shape.heads); // KQ comes back; soft_max in place
                if (mask.bytes == 0) {
                    mask = r.take(cells * t); // f32, first read by this soft_max
                }
                const Block weighted = r.take(shape.queryValues * t);
                r.drop(scores);
                const Block gate = r.take(shape.queryValues * t);
                r.drop(queryAndGate);
                gated = r.take(shape.queryValues * t);
                r.drop(weighted, gate);
            } else {
                r.drop(v); // stored into the cache
                const Block kNormed = r.take(shape.keyValues * t);
                r.drop(k, kNormed);
                if (flashAttention) {
                    const Block attended = r.take(shape.queryValues * t);
                    r.drop(q);
                    gated = r.take(shape.queryValues * t); // the gate, made contiguous
                    r.drop(queryAndGate, attended);
                } else {
                    // KQ over every cell, soft_max in place, KQV, made contiguous; the gate beside it.
                    const Block scores = r.take(cells * t * shape.heads);
                    r.drop(q);
                    const Block gate = r.take(shape.queryValues * t);
                    r.drop(queryAndGate);
                    const Block weighted = r.take(shape.queryValues * t);
                    r.drop(scores);
                    gated = r.take(shape.queryValues * t);
                    r.drop(weighted, gate);
                }
            }
            const Block projected = r.take(s.embd * t);
            r.drop(gated);
            r.drop(residual); // the residual add runs in place on the projection
            residual = projected;
            if (last) {
                break; // the rest runs on the output rows
            }
        } else {
            if (s.kind == RecurrentBlockKind::DeltaNetFusedQkvz) {
                fusedProjection(r, s, norm, convRows, convRowsTaken);
            } else {
                separateProjections(r, s, norm, convRows, convRowsTaken);
            }
            convRowsTaken = false;
            if (last) {
                break;
            }
        }

        // The MoE block: routing on the GPU, the experts on the CPU, the shared expert on the GPU.
        const Block postNorm = r.take(s.embd * t);
        const Block logits = r.take(shape.experts * t);
        const Block probabilities = r.take(shape.experts * t);
        const Block order = r.take(shape.experts * t);
        const Block chosen = r.take(shape.expertsUsed * t);
        r.drop(probabilities);
        const Block sum = r.take(t);
        const Block clamped = r.take(t);
        r.drop(sum);
        const Block weights = r.take(shape.expertsUsed * t);
        r.drop(chosen, clamped, logits, order);
        const Block expertOutputs = r.take(shape.expertsUsed * s.embd * t); // the next split's input
        if (b + 1 == firstAttentionBlock) {
            // The split that reaches the first attention block copies its inputs in too:
            // positions (four per token with M-RoPE), K and V row indices, the KQ mask.
            r.alloc.allocate(4 * shape.positionsPerToken * t);
            if (kqOnCpu) {
                r.alloc.allocate(keys.keyRotationBytes);
                r.alloc.allocate(8 * t);                   // K row indices
                r.alloc.allocate(8 * t * shape.keyValues); // one V index per value
            } else {
                replayCacheInputs(r, cells, shape.keyValues, flashAttention);
            }
        }
        r.drop(weights);
        Block expertSum{};
        Block sharedGlu{};
        Block sharedWeight{}; // shared_expert_gate; sigmoid in place
        if (shape.expertSumFirst) {
            expertSum = r.take(s.embd * t);
            r.drop(expertOutputs);
            const Block sharedGate = r.take(shape.sharedFeedForward * t);
            const Block sharedUp = r.take(shape.sharedFeedForward * t);
            sharedWeight = r.take(t);
            r.drop(postNorm);
            sharedGlu = r.take(shape.sharedFeedForward * t);
            r.drop(sharedGate, sharedUp);
        } else {
            const Block sharedGate = r.take(shape.sharedFeedForward * t);
            const Block sharedUp = r.take(shape.sharedFeedForward * t);
            expertSum = r.take(s.embd * t);
            r.drop(expertOutputs);
            sharedGlu = r.take(shape.sharedFeedForward * t);
            r.drop(sharedGate, sharedUp);
            sharedWeight = r.take(t);
            r.drop(postNorm);
        }
        const Block shared = r.take(s.embd * t);
        r.drop(sharedGlu, sharedWeight);
        if (!shape.attentionBlocks[b + 1]) {
            convRows = r.take((s.convKernel - 1) * conv * r.seqs);
            convRowsTaken = true;
        }
        r.drop(shared); // added in place into the experts' sum, as is the residual
        r.drop(residual);
        residual = expertSum;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

// The sequence below was read from Vulkan0's plan of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh qwen35moe_l8_ngl0_np1). The rules it follows are
// ggml-alloc's (recurrentreplay.h): the weight MULs, the bias ADDs, silu, sigmoid, the Q and K
// scales, RoPE on a norm's output and the gating MULs run in place.
#include "core/sizing/offloadeddeltanet.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>
#include <array>
#include <utility>

namespace llamafit {

std::optional<OffloadedDeltaNet> offloadedDeltaNet(const ModelInfo& model, const KvPlan& kv,
                                                   const LayerPlacement& layers, bool flashAttention,
                                                   bool expertsOnCpu, bool kqRefused) {
    std::optional<DeltaNetOnDeviceShape> shape = deltaNetOnDeviceShape(model);
    const bool fused = model.architecture == "qwen3next";
    if (!shape || (model.architecture != "qwen35moe" && !fused) ||
        (!flashAttention && (fused || kqRefused)) || !expertsOnCpu || kv.caches.size() != 1 ||
        kv.caches.front().layers == 0) {
        return std::nullopt;
    }
    const std::size_t blocks = shape->attentionBlocks.size();
    if (layers.layerDevice.size() < blocks || layers.layerDevice.front() != kHostDevice) {
        return std::nullopt;
    }
    std::size_t hostBlocks = 0;
    while (hostBlocks < blocks && layers.layerDevice[hostBlocks] == kHostDevice) {
        ++hostBlocks;
    }
    for (std::size_t il = hostBlocks; il < blocks; ++il) {
        if (layers.layerDevice[il] != layers.layerDevice[hostBlocks]) {
            return std::nullopt; // host blocks after GPU blocks, or several GPUs
        }
    }
    if (fused && hostBlocks != blocks) {
        return std::nullopt; // Qwen3-Next's GPU blocks after host blocks: not read from a plan
    }
    const auto firstAttention = std::find(shape->attentionBlocks.begin(), shape->attentionBlocks.end(), true);
    if (!flashAttention &&
        firstAttention - shape->attentionBlocks.begin() >= static_cast<std::ptrdiff_t>(hostBlocks)) {
        return std::nullopt; // the mask's first copy in a GPU attention block: not read from a plan
    }
    OffloadedDeltaNet split;
    split.shape = std::move(*shape);
    const KvCacheEstimate& cache = kv.caches.front();
    split.keyCache = cache.kBytes / cache.layers;
    split.valueCache = cache.vBytes / cache.layers;
    split.cells = cache.cells;
    split.flashAttention = flashAttention;
    split.deviceBlocks = static_cast<std::uint32_t>(blocks - hostBlocks);
    for (std::size_t il = 0; il < hostBlocks; ++il) {
        DeltaNetBlockWeights w;
        w.attentionNorm = model.blockTensorBytes(il, "attn_norm.weight");
        w.qkv = model.blockTensorBytes(il, fused ? "ssm_in.weight" : "attn_qkv.weight");
        w.betaAlpha = model.blockTensorBytes(il, "ssm_ba.weight");
        w.conv = model.blockTensorBytes(il, "ssm_conv1d.weight");
        w.alpha = model.blockTensorBytes(il, "ssm_alpha.weight");
        w.dtBias = model.blockTensorBytes(il, "ssm_dt.bias");
        w.decay = model.blockTensorBytes(il, "ssm_a");
        w.beta = model.blockTensorBytes(il, "ssm_beta.weight");
        w.norm = model.blockTensorBytes(il, "ssm_norm.weight");
        w.gate = model.blockTensorBytes(il, "attn_gate.weight");
        w.output = model.blockTensorBytes(il, "ssm_out.weight");
        w.query = model.blockTensorBytes(il, "attn_q.weight");
        w.queryNorm = model.blockTensorBytes(il, "attn_q_norm.weight");
        w.key = model.blockTensorBytes(il, "attn_k.weight");
        w.keyNorm = model.blockTensorBytes(il, "attn_k_norm.weight");
        w.value = model.blockTensorBytes(il, "attn_v.weight");
        w.attentionOutput = model.blockTensorBytes(il, "attn_output.weight");
        w.postAttentionNorm = model.blockTensorBytes(il, "post_attention_norm.weight");
        w.router = model.blockTensorBytes(il, "ffn_gate_inp.weight");
        w.sharedGate = model.blockTensorBytes(il, "ffn_gate_shexp.weight");
        w.sharedUp = model.blockTensorBytes(il, "ffn_up_shexp.weight");
        w.sharedDown = model.blockTensorBytes(il, "ffn_down_shexp.weight");
        w.sharedRouter = model.blockTensorBytes(il, "ffn_gate_inp_shexp.weight");
        if (split.shape.attentionBlocks[il] ? w.query == 0 || w.key == 0 || w.value == 0 : w.qkv == 0) {
            return std::nullopt; // another graph
        }
        split.hostBlocks.push_back(w);
    }
    return split;
}

std::uint64_t offloadedDeltaNetBytes(const OffloadedDeltaNet& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs) {
    const DeltaNetOnDeviceShape& shape = split.shape;
    const RecurrentBlockShape& s = shape.block;
    const std::size_t hostBlocks = split.hostBlocks.size();
    const std::size_t blocks = hostBlocks + split.deviceBlocks;
    if (hostBlocks == 0 || blocks != shape.attentionBlocks.size() || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t keyValues = s.groups * s.state; // the delta net's Q and K rows
    const std::uint64_t conv = s.inner + 2 * keyValues; // the conv channels
    const std::uint64_t convStates = (s.convKernel - 1) * conv * r.seqs;
    const std::uint64_t state = s.state * s.inner; // one slot's state
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);
    std::size_t lastAttention = blocks;
    std::size_t lastDeltaNet = blocks;
    std::size_t firstDeviceAttention = blocks;
    for (std::size_t b = 0; b < blocks; ++b) {
        (shape.attentionBlocks[b] ? lastAttention : lastDeltaNet) = b;
        if (shape.attentionBlocks[b] && b >= hostBlocks && firstDeviceAttention == blocks) {
            firstDeviceAttention = b;
        }
    }
    const DeltaNetBlockWeights none;
    // A host block's weights are copied in one at a time; a GPU block's are there.
    const auto weight = [&](std::size_t b, std::uint64_t bytes) {
        return b < hostBlocks ? r.alloc.allocate(bytes) : Block{};
    };
    const auto passing = [&](std::size_t b, std::uint64_t bytes) { r.alloc.release(weight(b, bytes)); };
    const auto deviceDeltaNet = [&](std::size_t b) {
        return b < blocks && b >= hostBlocks && !shape.attentionBlocks[b];
    };

    // The graph start: the mixed token/embedding input's copies and the DUP it keeps (mambaondevice.cpp).
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd, [] {}, [] {});
    Block residual = start.residual;
    Block positions{}; // inp_pos and the KQ mask: copied at their first use, freed after their last
    Block mask{};
    std::array<Block, 2> rowIndices{}; // a GPU attention block's K and V row indices
    Block outputIds{};
    Block stateCopyIds{}; // rs_s_copy: the GPU blocks' conv and state rows follow it
    Block convRows{};     // a GPU delta-net block's conv states, taken before it
    // The last block keeps its output rows: the residual's, then the block's, added in place.
    const auto outputRows = [&](Block out, Block residualRows) {
        const Block outRows = r.take(s.embd * rows);
        r.drop(out);
        r.alloc.release(outputIds);
        r.drop(residualRows, outRows);
    };

    // A delta-net block's end: silu(z) gates the norm in place, then ssm_out, added into the residual in
    // place.
    const auto gatedOutput = [&](std::size_t b, const DeltaNetBlockWeights& w, Block z, Block normed) {
        const Block activated = r.take(s.inner * t);
        r.drop(z);
        r.drop(activated);
        const Block outputWeight = weight(b, w.output);
        const Block out = r.take(s.embd * t);
        r.alloc.release(outputWeight);
        r.drop(normed);
        r.drop(out);
    };

    for (std::size_t b = 0; b < blocks; ++b) {
        const bool host = b < hostBlocks;
        const DeltaNetBlockWeights& w = host ? split.hostBlocks[b] : none;
        const bool last = b + 1 == blocks;
        if (b == hostBlocks) {
            convRows = deviceDeltaNet(b) ? r.take(convStates) : Block{};
        }
        const Block norm = r.take(s.embd * t);
        if (b == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        passing(b, w.attentionNorm);
        if (shape.attentionBlocks[b]) {
            const bool finalAttention = b == lastAttention;
            const Block queryWeight = weight(b, w.query);
            const Block queryAndGate = r.take(2 * shape.queryValues * t);
            r.alloc.release(queryWeight);
            Block q{};
            if (host) {
                q = r.take(shape.queryValues * t); // q norm; its weight and RoPE in place
                const Block queryNormWeight = weight(b, w.queryNorm);
                if (positions.bytes == 0) {
                    positions = r.alloc.allocate(4 * shape.positionsPerToken * t);
                }
                r.alloc.release(queryNormWeight);
            }
            const Block valueWeight = weight(b, w.value);
            const Block v = r.take(shape.keyValues * t);
            r.alloc.release(valueWeight);
            const Block keyWeight = weight(b, w.key);
            const Block k = r.take(shape.keyValues * t);
            r.alloc.release(keyWeight);
            r.drop(norm);
            Block kNormed{};
            if (host) {
                kNormed = r.take(shape.keyValues * t); // k norm; RoPE in place
                r.drop(k);
                passing(b, w.keyNorm);
                if (finalAttention) {
                    r.alloc.release(positions);
                }
                r.drop(kNormed, v); // stored into the host cache
            } else {
                q = r.take(shape.queryValues * t);
                r.drop(v); // stored into the cache
                if (finalAttention) {
                    r.alloc.release(rowIndices[1]);
                }
                kNormed = r.take(shape.keyValues * t);
                r.drop(k);
                if (finalAttention) {
                    r.alloc.release(positions);
                }
                r.drop(kNormed);
                if (finalAttention) {
                    r.alloc.release(rowIndices[0]);
                }
            }
            Block residualRows{};
            if (!host && last) {
                residualRows = r.take(s.embd * rows);
                r.drop(residual);
            }
            Block attended{};
            Block gate{};
            if (split.flashAttention) {
                // Flash attention: a host block's on copies of its layer's whole K and V.
                const Block keys = weight(b, split.keyCache);
                const Block values = weight(b, split.valueCache);
                if (mask.bytes == 0) {
                    mask = r.alloc.allocate(2 * split.cells * t); // f16
                }
                const Block flash = r.take(shape.queryValues * t);
                r.drop(q);
                r.alloc.release(keys);
                r.alloc.release(values);
                if (finalAttention) {
                    r.alloc.release(mask);
                }
                gate = r.take(shape.queryValues * t); // cont(gate); sigmoid and the MUL in place
                r.drop(queryAndGate);
                r.drop(flash);
            } else {
                // KQ (soft_max in place) and KQV on the GPU: a host block's over copies of its layer's
                // K, the f32 mask and V; the gate's sigmoid runs in place and multiplies into KQV's
                // contiguous copy.
                const Block keys = weight(b, split.keyCache);
                if (mask.bytes == 0) {
                    mask = r.alloc.allocate(4 * split.cells * t);
                }
                const Block values = weight(b, split.valueCache);
                const Block scores = r.alloc.allocate(4 * split.cells * t * shape.heads);
                r.alloc.release(keys);
                r.drop(q);
                if (finalAttention && host) {
                    r.alloc.release(mask);
                }
                gate = r.take(shape.queryValues * t);
                r.drop(queryAndGate);
                if (finalAttention && !host) {
                    r.alloc.release(mask);
                }
                const Block weighted = r.take(shape.queryValues * t);
                r.alloc.release(values);
                r.alloc.release(scores);
                attended = r.take(shape.queryValues * t);
                r.drop(weighted);
                r.drop(gate);
            }
            const Block outputWeight = weight(b, w.attentionOutput);
            if (host && last) {
                outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
            }
            const Block out = r.take(s.embd * t);
            r.alloc.release(outputWeight);
            r.drop(split.flashAttention ? gate : attended);
            if (last) {
                if (host) {
                    residualRows = r.take(s.embd * rows);
                    r.drop(residual);
                }
                outputRows(out, residualRows);
                break;
            }
            r.drop(residual); // the residual add in place into the projection
            residual = out;
        } else if (s.kind == RecurrentBlockKind::DeltaNetFusedQkvz) {
            // Qwen3-Next (qwen3next_l8_ngl0_np1's plan: 103.50 MiB): one projection of Q, K, V and z, whose
            // flattened Q, K and V are concatenated for the conv; Q and K repeated to the value heads; beta
            // and alpha from one more projection.
            const Block inputWeight = weight(b, w.qkv);
            const Block hostConvRows = r.take(convStates); // the host's conv states
            const Block qkvz = r.take((conv + s.inner) * t);
            r.alloc.release(inputWeight);
            const Block queryRows = r.take(keyValues * t);
            const Block keyRows = r.take(keyValues * t);
            const Block valueRows = r.take(s.inner * t);
            const Block queryKey = r.take(2 * keyValues * t);
            r.drop(queryRows, keyRows);
            const Block qkv = r.take(conv * t);
            r.drop(queryKey, valueRows);
            const Block convInput = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
            r.drop(hostConvRows, qkv);
            const Block convWeight = weight(b, w.conv);
            const Block convOut = r.take(conv * t); // silu in place
            r.drop(convInput);
            r.alloc.release(convWeight);
            const Block qNormed = r.take(keyValues * t); // l2 norms; the scales in place
            const Block kNormed = r.take(keyValues * t);
            const Block qRepeated = r.take(s.inner * t);
            r.drop(qNormed);
            const Block kRepeated = r.take(s.inner * t);
            r.drop(kNormed);
            const Block betaAlphaWeight = weight(b, w.betaAlpha);
            const Block betaAlpha = r.take(2 * s.heads * t);
            r.alloc.release(betaAlphaWeight);
            r.drop(norm);
            const Block decay = r.take(s.heads * t); // cont(alpha); dt bias, softplus and the gate in place
            passing(b, w.dtBias);
            const Block decayWeight = weight(b, w.decay);
            const Block states = r.take(state * r.seqs); // the block's state, copied in
            r.alloc.release(decayWeight);
            const Block betaSigmoid = r.take(s.heads * t);
            r.drop(betaAlpha);
            const Block deltaNet = r.take(s.inner * t + state * r.seqs);
            r.drop(qRepeated, kRepeated);
            r.drop(convOut, decay, betaSigmoid, states);
            const Block normWeight = weight(b, w.norm);
            const Block normed = r.take(s.inner * t);
            r.drop(deltaNet);
            r.alloc.release(normWeight);
            const Block z = r.take(s.inner * t); // cont(z)
            r.drop(qkvz);
            gatedOutput(b, w, z, normed);
        } else {
            const Block qkvWeight = weight(b, w.qkv);
            const Block hostConvRows = host ? r.take(convStates) : Block{}; // the host's conv states
            const Block qkv = r.take(conv * t);
            r.alloc.release(qkvWeight);
            const Block convInput = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
            r.drop(host ? hostConvRows : convRows);
            r.drop(qkv);
            const Block stateRows = host ? Block{} : r.take(state * r.seqs);
            if (!host && b == lastDeltaNet) {
                r.alloc.release(stateCopyIds); // its last reader
            }
            const Block convWeight = weight(b, w.conv);
            const Block convOut = r.take(conv * t); // silu in place
            r.drop(convInput);
            r.alloc.release(convWeight);
            Block qNormed{};
            Block kNormed{};
            if (host) {
                qNormed = r.take(keyValues * t); // l2 norms; the scales in place
                kNormed = r.take(keyValues * t);
            }
            const Block alphaWeight = weight(b, w.alpha);
            const Block alpha = r.take(s.heads * t);
            r.alloc.release(alphaWeight);
            if (!host) {
                qNormed = r.take(keyValues * t);
                kNormed = r.take(keyValues * t);
            }
            const Block dtBias = weight(b, w.dtBias);
            const Block decay = r.take(s.heads * t); // alpha + dt bias; softplus and the gate in place
            r.drop(alpha);
            r.alloc.release(dtBias);
            passing(b, w.decay);
            const Block betaWeight = weight(b, w.beta);
            const Block states = host ? r.take(state * r.seqs) : stateRows; // a host block's state, copied in
            const Block beta = r.take(s.heads * t);
            r.alloc.release(betaWeight);
            const Block betaSigmoid = r.take(s.heads * t);
            r.drop(beta);
            const Block deltaNet = r.take(s.inner * t + state * r.seqs); // its output and new state
            r.drop(qNormed, kNormed);
            r.drop(convOut, decay, betaSigmoid, states);
            Block normed{};
            Block z{};
            if (host) {
                const Block normWeight = weight(b, w.norm);
                normed = r.take(s.inner * t); // the gated norm's RMS norm
                r.drop(deltaNet);
                r.alloc.release(normWeight);
                const Block gateWeight = weight(b, w.gate);
                z = r.take(s.inner * t);
                r.alloc.release(gateWeight);
                r.drop(norm);
            } else {
                z = r.take(s.inner * t);
                r.drop(norm);
                normed = r.take(s.inner * t);
                r.drop(deltaNet);
            }
            gatedOutput(b, w, z, normed);
        }

        // The MoE FFN: routing on the GPU, the experts on the CPU, whose n_used outputs come back
        // to be weighted in place and summed; the shared expert, gated, beside them.
        const Block ffnNorm = r.take(s.embd * t); // post-attention norm; its weight in place
        passing(b, w.postAttentionNorm);
        const Block routerWeight = weight(b, w.router);
        const Block logits = r.take(shape.experts * t);
        r.alloc.release(routerWeight);
        const Block probabilities = r.take(shape.experts * t);
        const Block order = r.take(shape.experts * t); // i32
        const Block chosen = r.take(shape.expertsUsed * t);
        r.drop(probabilities);
        const Block sum = r.take(t);
        const Block clamped = r.take(t);
        r.drop(sum);
        const Block normalised = r.take(shape.expertsUsed * t);
        r.drop(chosen, clamped, logits, order);
        const Block expertOutputs = r.take(shape.expertsUsed * s.embd * t);
        if (b + 1 == firstDeviceAttention) {
            // The GPU attention block's inputs come with the expert outputs: K and V row indices,
            // the output ids.
            rowIndices = {r.alloc.allocate(8 * t),
                          r.alloc.allocate(8 * t * (split.flashAttention ? 1 : shape.keyValues))};
            outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
        }
        r.drop(normalised);
        Block experts{};
        Block glu{};
        if (host) {
            experts = r.take(s.embd * t); // their sum
            r.drop(expertOutputs);
            const Block sharedGateWeight = weight(b, w.sharedGate);
            const Block sharedGate = r.take(shape.sharedFeedForward * t);
            r.alloc.release(sharedGateWeight);
            const Block sharedUpWeight = weight(b, w.sharedUp);
            const Block sharedUp = r.take(shape.sharedFeedForward * t);
            r.alloc.release(sharedUpWeight);
            glu = r.take(shape.sharedFeedForward * t);
            r.drop(sharedGate, sharedUp);
            const Block sharedDownWeight = weight(b, w.sharedDown);
            const Block shared = r.take(s.embd * t);
            r.alloc.release(sharedDownWeight);
            r.drop(glu);
            const Block sharedRouterWeight = weight(b, w.sharedRouter);
            if (b + 1 == hostBlocks && deviceDeltaNet(b + 1)) {
                stateCopyIds = r.alloc.allocate(4 * r.seqs);
            }
            const Block sharedWeighting = r.take(t); // sigmoid in place
            r.alloc.release(sharedRouterWeight);
            r.drop(ffnNorm, sharedWeighting);
            r.drop(shared); // added into the experts' sum in place
        } else {
            const Block sharedGate = r.take(shape.sharedFeedForward * t);
            const Block sharedUp = r.take(shape.sharedFeedForward * t);
            experts = r.take(s.embd * t);
            r.drop(expertOutputs);
            glu = r.take(shape.sharedFeedForward * t);
            r.drop(sharedGate, sharedUp);
            const Block sharedWeighting = r.take(t);
            r.drop(ffnNorm);
            const Block shared = r.take(s.embd * t);
            r.drop(glu, sharedWeighting);
            if (deviceDeltaNet(b + 1)) {
                convRows = r.take(convStates); // the next block's conv states
            }
            r.drop(shared);
        }
        r.drop(residual); // and the residual too
        residual = experts;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

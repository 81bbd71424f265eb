// The sequence below was read from the plan of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh deepseek2_mla_ngl_part_ub1024); the rules are
// recurrentreplay.h's.
#include "core/sizing/offloadedmla.h"

#include "core/sizing/recurrentreplay.h"

namespace llamafit {

std::optional<OffloadedMla> offloadedMla(const ModelInfo& model, const KvPlan& kv,
                                         const LayerPlacement& layers, bool flashAttention,
                                         bool expertsOnCpu) {
    const std::size_t blocks = model.trunkLayerCount();
    if (model.architecture != "deepseek2" || !model.mla || !flashAttention || !expertsOnCpu ||
        kv.caches.size() != 1 || kv.caches.front().layers == 0 || blocks < 2 ||
        model.layers.size() < blocks || layers.layerDevice.size() < blocks || model.expertUsedCount == 0) {
        return std::nullopt;
    }
    // The latent geometry from the tensors' shapes: attn_k_b {nope, kv_lora_rank, n_head}, attn_kv_a_mqa
    // {n_embd, kv_lora_rank + rope}, attn_q {n_embd, n_head * (nope + rope)}, attn_v_b {kv_lora_rank,
    // v_head_dim, n_head}; the shared experts' gate {n_embd, n_expert_shared * n_ff_exp}.
    const LayerInfo& first = model.layers.front();
    const TensorSummary* keyAbsorb = model.blockTensor(0, "attn_k_b.weight");
    const TensorSummary* compress = model.blockTensor(0, "attn_kv_a_mqa.weight");
    const TensorSummary* query = model.blockTensor(0, "attn_q.weight");
    const TensorSummary* valueAbsorb = model.blockTensor(0, "attn_v_b.weight");
    const TensorSummary* sharedGate = model.blockTensor(blocks - 1, "ffn_gate_shexp.weight");
    if (keyAbsorb == nullptr || compress == nullptr || query == nullptr || valueAbsorb == nullptr ||
        sharedGate == nullptr || first.headCount == 0) {
        return std::nullopt;
    }
    OffloadedMla shape;
    shape.embd = model.embeddingLength;
    shape.heads = first.headCount;
    shape.latent = keyAbsorb->rows() / shape.heads;
    shape.rope = compress->rows() > shape.latent ? compress->rows() - shape.latent : 0;
    shape.queryValues = query->rows();
    shape.valueValues = valueAbsorb->rows();
    shape.feedForward = first.feedForwardLength;
    shape.sharedFeedForward = sharedGate->rows();
    shape.experts = model.expertCount;
    shape.expertsUsed = model.expertUsedCount;
    const KvCacheEstimate& cache = kv.caches.front();
    shape.cells = cache.cells;
    shape.latentCache = cache.kBytes / cache.layers;
    if (shape.latent == 0 || shape.rope == 0 || shape.queryValues == 0 || shape.valueValues == 0) {
        return std::nullopt;
    }
    for (std::size_t il = 0; il < blocks; ++il) {
        if (layers.layerDevice[il] != kHostDevice) {
            continue;
        }
        MlaBlockWeights w;
        w.attentionNorm = model.blockTensorBytes(il, "attn_norm.weight");
        w.query = model.blockTensorBytes(il, "attn_q.weight");
        w.keyAbsorb = model.blockTensorBytes(il, "attn_k_b.weight");
        w.kvCompress = model.blockTensorBytes(il, "attn_kv_a_mqa.weight");
        w.kvNorm = model.blockTensorBytes(il, "attn_kv_a_norm.weight");
        w.valueAbsorb = model.blockTensorBytes(il, "attn_v_b.weight");
        w.output = model.blockTensorBytes(il, "attn_output.weight");
        w.feedForwardNorm = model.blockTensorBytes(il, "ffn_norm.weight");
        w.gate = model.blockTensorBytes(il, "ffn_gate.weight");
        w.up = model.blockTensorBytes(il, "ffn_up.weight");
        w.down = model.blockTensorBytes(il, "ffn_down.weight");
        w.router = model.blockTensorBytes(il, "ffn_gate_inp.weight");
        w.sharedGate = model.blockTensorBytes(il, "ffn_gate_shexp.weight");
        w.sharedUp = model.blockTensorBytes(il, "ffn_up_shexp.weight");
        w.sharedDown = model.blockTensorBytes(il, "ffn_down_shexp.weight");
        w.last = il + 1 == blocks;
        const bool dense = w.gate > 0 && w.up > 0 && w.down > 0;
        const bool routed = w.router > 0 && w.sharedGate > 0;
        if (w.query == 0 || w.keyAbsorb == 0 || w.valueAbsorb == 0 || w.kvCompress == 0 || dense == routed) {
            return std::nullopt; // a q LoRA, or an FFN of another kind: not read from a plan
        }
        shape.hostBlocks.push_back(w);
    }
    if (shape.hostBlocks.empty()) {
        return std::nullopt;
    }
    return shape;
}

std::uint64_t offloadedMlaBytes(const OffloadedMla& s, std::uint64_t tokens) {
    if (s.hostBlocks.empty() || tokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(tokens, 1);
    const std::uint64_t t = r.tokens;

    // The graph start as in mambaondevice.cpp: the mixed input's rows and slot ids, the token
    // embeddings (the residual) and the DUP.
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd, [] {}, [] {});
    Block residual = start.residual;
    Block positions{};
    Block mask{};
    for (std::size_t b = 0; b < s.hostBlocks.size(); ++b) {
        const MlaBlockWeights& w = s.hostBlocks[b];
        const Block norm = r.take(s.embd * t);
        if (b == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        r.passing(w.attentionNorm);
        // Q, its no-RoPE part absorbed into the latent space, its RoPE part roped; concatenated.
        const Block q = r.product(w.query, s.queryValues);
        const Block absorbWeight = r.alloc.allocate(w.keyAbsorb);
        if (positions.bytes == 0) {
            positions = r.alloc.allocate(4 * t);
        }
        const Block absorbed = r.take(s.heads * s.latent * t);
        r.alloc.release(absorbWeight);
        const Block queryRope = r.take(s.heads * s.rope * t);
        r.drop(q);
        const Block query = r.take(s.heads * (s.latent + s.rope) * t);
        r.drop(absorbed, queryRope);
        // The compressed KV and its RoPE part, normed and roped, concatenated into the latent cache.
        const Block compressed = r.product(w.kvCompress, s.latent + s.rope);
        r.drop(norm);
        const Block latentNorm = r.take(s.latent * t);
        r.passing(w.kvNorm);
        const Block keyRope = r.take(s.rope * t);
        r.drop(compressed);
        const Block latentKey = r.take((s.latent + s.rope) * t);
        r.drop(latentNorm, keyRope, latentKey); // stored into the host cache
        // Flash attention over copies of the layer's latent cache, read as K and as V; the f16 mask
        // comes over once and stays.
        const Block keys = r.alloc.allocate(s.latentCache);
        const Block values = r.alloc.allocate(s.latentCache);
        if (mask.bytes == 0) {
            mask = r.alloc.allocate(2 * s.cells * t);
        }
        const Block attended = r.take(s.heads * s.latent * t);
        r.drop(query);
        r.alloc.release(keys);
        r.alloc.release(values);
        const Block unabsorbed = r.product(w.valueAbsorb, s.valueValues);
        r.drop(attended);
        const Block contiguous = r.take(s.valueValues * t);
        r.drop(unabsorbed);
        const Block projected = r.product(w.output, s.embd);
        r.drop(contiguous);
        if (w.last) {
            break; // the output rows go on, too few for op offload
        }
        r.drop(residual); // the residual add runs in place on the projection
        residual = projected;

        const Block ffnNorm = r.take(s.embd * t);
        r.passing(w.feedForwardNorm);
        Block out{};
        if (w.router == 0) {
            out = replayGatedFeedForward(r, s.embd, s.feedForward, ffnNorm, {w.gate, w.up, w.down});
        } else {
            // The GPU routes (logits, soft_max, argsort, the chosen weights); the CPU runs the experts,
            // whose n_used outputs come back to be weighted in place and summed; the shared experts'
            // gated FFN beside them, added into the sum in place.
            const Block logits = r.product(w.router, s.experts);
            const Block probabilities = r.take(s.experts * t);
            const Block order = r.take(s.experts * t); // i32
            const Block chosen = r.take(s.expertsUsed * t);
            r.drop(probabilities, logits, order);
            const Block expertOutputs = r.take(s.expertsUsed * s.embd * t);
            r.drop(chosen);
            out = r.take(s.embd * t);
            r.drop(expertOutputs);
            r.drop(replayGatedFeedForward(r, s.embd, s.sharedFeedForward, ffnNorm,
                                          {w.sharedGate, w.sharedUp, w.sharedDown}));
        }
        r.drop(residual); // and the residual add, in place on the FFN's output
        residual = out;
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit

// The sequences below were read from Vulkan0's plans of llama-server 0.7.0 (b11669) on lavapipe,
// -ngl 0, flash attention on (scripts/alloc-plan, galloc_replay.py): llama_l4 88.00 MiB, qwen2
// 47.42, qwen3 38.13. The rules they follow are ggml-alloc's (recurrentreplay.h): a norm is a new
// tensor, its weight's MUL runs in place; a bias ADD runs in place; a ROPE on a reshaped matmul
// result is a new tensor, on a norm's output it runs in place.
#include "core/sizing/offloadedattention.h"

#include "core/sizing/allocatorreplay.h"

#include <algorithm>
#include <utility>

namespace llamafit {
namespace {

using Block = AllocatorReplay::Block;

class Sequence {
  public:
    explicit Sequence(std::uint64_t tokens) : m_tokens(tokens) {}

    // An f32 activation of `values` per token.
    Block rows(std::uint64_t values) { return m_alloc.allocate(4 * values * m_tokens); }
    Block bytes(std::uint64_t count) { return m_alloc.allocate(count); }
    void free(Block block) { m_alloc.release(block); }
    // A host weight's copy: it lives for its one op.
    void passing(std::uint64_t count) { m_alloc.release(m_alloc.allocate(count)); }
    std::uint64_t peak() const { return m_alloc.peakBytes(); }

  private:
    AllocatorReplay m_alloc;
    std::uint64_t m_tokens;
};

// Gate and up (each weight copied in for its product), the GLU, down; `input` dies at the up
// product. Returns the FFN's output.
Block denseFeedForward(Sequence& g, const OffloadedAttentionShape& s, const OffloadedBlockTensors& t,
                       Block input) {
    const Block gateWeight = g.bytes(t.gate);
    const Block gate = g.rows(s.feedForward);
    g.free(gateWeight);
    const Block upWeight = g.bytes(t.up);
    const Block up = g.rows(s.feedForward);
    g.free(upWeight);
    g.free(input);
    const Block glu = g.rows(s.feedForward);
    g.free(gate);
    g.free(up);
    const Block downWeight = g.bytes(t.down);
    const Block out = g.rows(s.embd);
    g.free(downWeight);
    g.free(glu);
    return out;
}

} // namespace

std::optional<OffloadedAttentionShape> offloadedAttentionShape(const ModelInfo& model, const KvPlan& kv,
                                                               const LayerPlacement& layers,
                                                               const OffloadConditions& conditions) {
    const bool expertsOnCpu = conditions.expertsOnCpu;
    const std::string& arch = model.architecture;
    const bool biased = arch == "gpt-oss"; // biases on the attention and the experts, sinks
    const bool routed = arch == "qwen3moe" || biased;
    const bool gemma = arch == "gemma2" || arch == "gemma3";
    const bool parallel = arch == "cohere2";
    if ((arch != "llama" && arch != "qwen2" && arch != "qwen3" && !gemma && !parallel &&
         !(routed && expertsOnCpu)) ||
        kv.caches.empty() || kv.layerInSwaCache.size() != model.layers.size() || model.layers.empty()) {
        return std::nullopt;
    }
    if (routed && (model.expertCount == 0 || model.expertUsedCount == 0)) {
        return std::nullopt;
    }
    const LayerInfo& first = model.layers.front();
    OffloadedAttentionShape shape;
    shape.embd = model.embeddingLength;
    shape.heads = first.headCount;
    shape.queryValues = std::uint64_t{first.headCount} * first.keyHeadDim;
    shape.keyValues = std::uint64_t{first.headCountKv} * first.keyHeadDim;
    shape.valueValues = std::uint64_t{first.headCountKv} * first.valueHeadDim;
    shape.attendedValues = std::uint64_t{first.headCount} * first.valueHeadDim;
    shape.feedForward = first.feedForwardLength;
    shape.experts = routed ? model.expertCount : 0;
    shape.expertsUsed = routed ? model.expertUsedCount : 0;
    shape.expertFeedForward = biased ? model.expertFeedForwardLength : 0;
    if (biased && shape.expertFeedForward == 0) {
        return std::nullopt;
    }
    shape.flashAttention = conditions.flashAttention;
    shape.limits = conditions.limits;
    shape.order.keyFirst = gemma || parallel || biased;
    shape.order.parallelFeedForward = parallel;
    shape.order.scaledInput = gemma;
    shape.order.scaleRows = arch == "gemma3";
    for (const auto& cache : kv.caches) {
        shape.maskCells.push_back(cache.cells);
    }
    for (std::size_t il = 0; il < model.layers.size() && il < layers.layerDevice.size(); ++il) {
        if (layers.layerDevice[il] != kHostDevice) {
            continue;
        }
        const LayerInfo& layer = model.layers[il];
        if (!layer.hasKv || layer.headCount != first.headCount || layer.headCountKv != first.headCountKv ||
            layer.keyHeadDim != first.keyHeadDim || layer.valueHeadDim != first.valueHeadDim) {
            return std::nullopt;
        }
        const std::optional<std::size_t> cacheIndex = kv.cacheOf(il);
        if (!cacheIndex || kv.caches[*cacheIndex].layers == 0) {
            return std::nullopt;
        }
        OffloadedBlockTensors t;
        t.attentionNorm = model.blockTensorBytes(il, "attn_norm.weight");
        t.query = model.blockTensorBytes(il, "attn_q.weight");
        t.queryBias = model.blockTensorBytes(il, "attn_q.bias");
        t.queryNorm = model.blockTensorBytes(il, "attn_q_norm.weight");
        t.key = model.blockTensorBytes(il, "attn_k.weight");
        t.keyBias = model.blockTensorBytes(il, "attn_k.bias");
        t.keyNorm = model.blockTensorBytes(il, "attn_k_norm.weight");
        t.value = model.blockTensorBytes(il, "attn_v.weight");
        t.valueBias = model.blockTensorBytes(il, "attn_v.bias");
        t.attentionOutput = model.blockTensorBytes(il, "attn_output.weight");
        t.postAttentionNorm = model.blockTensorBytes(il, "post_attention_norm.weight");
        t.feedForwardNorm = model.blockTensorBytes(il, "ffn_norm.weight");
        if (biased) { // gpt-oss names its FFN's input norm post_attention_norm
            t.feedForwardNorm = std::exchange(t.postAttentionNorm, 0);
            t.outputBias = model.blockTensorBytes(il, "attn_output.bias");
            t.sinks = model.blockTensorBytes(il, "attn_sinks.weight");
            t.routerBias = model.blockTensorBytes(il, "ffn_gate_inp.bias");
            t.gateBias = model.blockTensorBytes(il, "ffn_gate_exps.bias");
            t.upBias = model.blockTensorBytes(il, "ffn_up_exps.bias");
            t.downBias = model.blockTensorBytes(il, "ffn_down_exps.bias");
        }
        t.gate = model.blockTensorBytes(il, "ffn_gate.weight");
        t.up = model.blockTensorBytes(il, "ffn_up.weight");
        t.down = model.blockTensorBytes(il, "ffn_down.weight");
        t.postFeedForwardNorm = model.blockTensorBytes(il, "post_ffw_norm.weight");
        t.router = routed ? model.blockTensorBytes(il, "ffn_gate_inp.weight") : 0;
        const bool feedForward = routed ? t.router > 0 : t.gate > 0 && t.up > 0 && t.down > 0;
        if (t.query == 0 || t.key == 0 || t.value == 0 || !feedForward) {
            return std::nullopt; // fused QKV or a gateless FFN: another graph
        }
        const KvCacheEstimate& cache = kv.caches[*cacheIndex];
        t.keyCache = cache.kBytes / cache.layers;
        t.valueCache = cache.vBytes / cache.layers;
        t.cache = *cacheIndex;
        t.last = il + 1 == model.blockCount - model.nextnLayerCount;
        shape.hostBlocks.push_back(t);
    }
    if (shape.hostBlocks.empty()) {
        return std::nullopt;
    }
    return shape;
}

std::uint64_t offloadedAttentionComputeBytes(const OffloadedAttentionShape& s, std::uint64_t tokens) {
    if (s.hostBlocks.empty() || tokens == 0) {
        return 0;
    }
    Sequence g(tokens);
    // The graph start as in mambaondevice.cpp: the mixed token/embedding input's two rows and its
    // slot ids, the token embeddings (the residual) and the DUP the mixed path keeps to the end.
    const Block mixed = g.rows(s.embd);
    const Block mixedRows = g.rows(s.embd);
    const Block slots = g.bytes(8 * tokens);
    Block residual = g.rows(s.embd);
    const Block scaleRows = s.order.scaleRows ? g.rows(1) : Block{};
    g.rows(s.embd); // DUP
    g.free(mixed);
    g.free(scaleRows);
    if (s.order.scaledInput) {
        g.free(mixedRows); // the scale (in place on the embeddings) read them last
        g.free(slots);
    }

    bool positionsCopied = false; // inp_pos comes over in the split of the first ROPE and stays
    std::vector<bool> maskCopied(s.maskCells.size(), false); // each cache's KQ mask: at first use
    std::vector<Block> masks(s.maskCells.size());
    // With every block on the host a mask dies after its cache's last layer (gpt-oss -ngl 0: the
    // window's after block 6); GPU blocks after them read it too.
    std::vector<std::size_t> lastReader(s.maskCells.size(), s.hostBlocks.size());
    if (s.hostBlocks.back().last) {
        for (std::size_t b = 0; b < s.hostBlocks.size(); ++b) {
            lastReader[s.hostBlocks[b].cache] = b;
        }
    }
    Block positions{};
    const auto copyPositions = [&] {
        if (!positionsCopied) {
            positions = g.bytes(4 * tokens);
            positionsCopied = true;
        }
    };
    for (std::size_t b = 0; b < s.hostBlocks.size(); ++b) {
        const OffloadedBlockTensors& t = s.hostBlocks[b];
        const Block norm = g.rows(s.embd); // attn_norm; its weight's MUL in place
        if (b == 0 && !s.order.scaledInput) {
            g.free(mixedRows);
            g.free(slots);
        }
        g.passing(t.attentionNorm);

        // Q: the matmul, then (qwen2) the bias in place or a q norm, then RoPE (and Gemma's
        // scale, in place).
        const Block qWeight = g.bytes(t.query);
        if (t.queryBias == 0 && t.queryNorm == 0) {
            copyPositions(); // the Q matmul and its ROPE share a split
        }
        const Block q = g.rows(s.queryValues);
        g.free(qWeight);
        Block roped;
        if (t.queryNorm > 0) {
            roped = g.rows(s.queryValues); // rms_norm of the reshaped Q; MUL and ROPE in place
            g.free(q);
            const Block weight = g.bytes(t.queryNorm);
            copyPositions();
            g.free(weight);
        } else {
            if (t.queryBias > 0) {
                const Block bias = g.bytes(t.queryBias);
                copyPositions();
                g.free(bias);
            }
            roped = g.rows(s.queryValues);
            g.free(q);
        }

        // K and V in the builder's order; the attention norm dies at the later matmul; K and V
        // leave for the host cache.
        Block k;
        Block v;
        const auto projectKey = [&] {
            const Block weight = g.bytes(t.key);
            k = g.rows(s.keyValues);
            g.free(weight);
        };
        const auto finishKey = [&] { // its norm or bias, then RoPE
            if (t.keyNorm > 0) {
                const Block normed = g.rows(s.keyValues);
                g.free(k);
                g.passing(t.keyNorm);
                k = normed;
            } else {
                g.passing(t.keyBias);
                const Block keyRoped = g.rows(s.keyValues);
                g.free(k);
                k = keyRoped;
            }
        };
        const auto projectValue = [&] {
            const Block weight = g.bytes(t.value);
            v = g.rows(s.valueValues);
            g.free(weight);
        };
        // With every block on the host the positions die at the final layer's K RoPE.
        const auto finishFinalKey = [&] {
            finishKey();
            if (t.last) {
                g.free(positions);
            }
        };
        if (s.order.keyFirst) {
            projectKey();
            finishFinalKey();
            projectValue();
            if (!s.order.parallelFeedForward) {
                g.free(norm); // its last reader, before V's bias (gpt-oss)
            }
            g.passing(t.valueBias);
        } else {
            projectValue();
            g.passing(t.valueBias);
            projectKey();
            g.free(norm);
            finishFinalKey();
        }
        g.free(k);
        g.free(v);

        Block attended;
        if (s.flashAttention) {
            // Flash attention on copies of the layer's whole K and V.
            const Block keys = g.bytes(t.keyCache);
            const Block values = g.bytes(t.valueCache);
            if (!maskCopied[t.cache]) {
                masks[t.cache] = g.bytes(2 * s.maskCells[t.cache] * tokens); // f16
                maskCopied[t.cache] = true;
            }
            const Block sinks = g.bytes(t.sinks);
            attended = g.rows(s.attendedValues);
            g.free(roped);
            g.free(keys);
            g.free(values);
            g.free(sinks);
            if (b == lastReader[t.cache]) {
                g.free(masks[t.cache]);
            }
        } else if (const std::uint64_t kq = 4 * s.maskCells[t.cache] * tokens * s.heads;
                   s.limits.allowsTensor(kq)) {
            // KQ, soft_max (in place) and KQV on the GPU, with copies of K, the f32 mask and V.
            const Block keys = g.bytes(t.keyCache);
            if (!maskCopied[t.cache]) {
                g.bytes(4 * s.maskCells[t.cache] * tokens);
                maskCopied[t.cache] = true;
            }
            const Block values = g.bytes(t.valueCache);
            const Block scores = g.bytes(kq);
            g.free(keys);
            g.free(roped);
            const Block weighted = g.rows(s.attendedValues);
            g.free(values);
            g.free(scores);
            attended = g.rows(s.attendedValues); // made contiguous
            g.free(weighted);
        } else {
            // The GPU refuses KQ: Q goes to the CPU, which attends over the host cache; the
            // permuted result comes back and is made contiguous.
            g.free(roped);
            const Block copied = g.rows(s.attendedValues);
            attended = g.rows(s.attendedValues);
            g.free(copied);
        }

        if (t.last) {
            const Block oWeight = g.bytes(t.attentionOutput);
            g.rows(s.embd);
            g.free(oWeight);
            g.free(attended);
            break;
        }
        if (s.order.parallelFeedForward) {
            // The FFN on the attention's norm, the residual added in place on its output, then
            // the attention's output projection added in place too.
            const Block out = denseFeedForward(g, s, t, norm);
            g.free(residual);
            residual = out;
            const Block oWeight = g.bytes(t.attentionOutput);
            const Block projected = g.rows(s.embd);
            g.free(oWeight);
            g.free(attended);
            g.free(projected);
            continue;
        }

        // The output projection; a post-attention norm and the residual add run in place on it.
        const Block oWeight = g.bytes(t.attentionOutput);
        const Block projected = g.rows(s.embd);
        g.free(oWeight);
        g.free(attended);
        g.passing(t.outputBias);
        g.passing(t.postAttentionNorm);
        g.free(residual);
        const Block ffnInput = projected;

        const Block ffnNorm = g.rows(s.embd);
        g.passing(t.feedForwardNorm);
        if (t.router > 0 && s.expertFeedForward > 0) {
            // gpt-oss's biased experts the GPU refuses: it routes (logits and their bias, argsort, the
            // chosen logits' soft_max); the gate and up products come back from the CPU for their
            // bias adds (ggml_add_id stays with its bias on the GPU) and the GLU, which the CPU's
            // down product reads; its n_used outputs come back for their bias, weighting and sum.
            const Block routerWeight = g.bytes(t.router);
            const Block logits = g.rows(s.experts);
            g.free(routerWeight);
            g.passing(t.routerBias);
            const Block order = g.rows(s.experts); // i32
            const Block chosen = g.rows(s.expertsUsed);
            const Block weights = g.rows(s.expertsUsed); // soft_max
            g.free(chosen);
            g.free(logits);
            g.free(ffnNorm);
            const Block gate = g.rows(s.expertsUsed * s.expertFeedForward);
            g.passing(t.gateBias);
            const Block up = g.rows(s.expertsUsed * s.expertFeedForward);
            g.passing(t.upBias);
            const Block glu = g.rows(s.expertsUsed * s.expertFeedForward);
            g.free(gate);
            g.free(up);
            g.free(glu);
            const Block expertOutputs = g.rows(s.expertsUsed * s.embd);
            g.passing(t.downBias);
            g.free(order);
            g.free(weights);
            residual = g.rows(s.embd);
            g.free(expertOutputs);
            g.free(ffnInput);
            continue;
        }
        if (t.router > 0) {
            // Routed experts the GPU refuses: it routes (logits, soft_max, argsort, the chosen
            // weights and their normalisation); the CPU runs the experts, whose n_used outputs
            // come back to be weighted in place and summed.
            const Block routerWeight = g.bytes(t.router);
            const Block logits = g.rows(s.experts);
            g.free(routerWeight);
            const Block probabilities = g.rows(s.experts);
            const Block order = g.rows(s.experts); // i32
            const Block chosen = g.rows(s.expertsUsed);
            g.free(probabilities);
            const Block sum = g.rows(1);
            const Block clamped = g.rows(1);
            g.free(sum);
            const Block normalised = g.rows(s.expertsUsed);
            g.free(chosen);
            g.free(clamped);
            g.free(logits);
            g.free(ffnNorm);
            g.free(order);
            const Block expertOutputs = g.rows(s.expertsUsed * s.embd);
            g.free(normalised);
            residual = g.rows(s.embd);
            g.free(expertOutputs);
            g.free(ffnInput);
            continue;
        }
        // The feed-forward block: gate, up, the GLU, down; a post-FFN norm and the residual add
        // in place on its output.
        residual = denseFeedForward(g, s, t, ffnNorm);
        g.passing(t.postFeedForwardNorm);
        g.free(ffnInput);
    }
    return g.peak();
}

} // namespace llamafit

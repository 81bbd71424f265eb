// Compute-buffer closed form. The widths below were fitted to 60+ compute-buffer lines of the
// 0.7.0 CPU backend (§7 of llama-cpp-memory.md plus sweeps over n_embd, n_ff, heads, experts
// and SSM sizes); the unit tests hold every §7 vector within 5 %.
//
// Why the odd shapes: ggml-alloc (ggml/src/ggml-alloc.c) reuses freed blocks best-fit, so a
// block's peak is what stays live plus what cannot go into the holes earlier tensors left.
// A base of 5 * n_embd floats per token stays live (residual, norms, inputs); a tensor about
// the size of n_embd drops into a hole, a bigger one lands on top.
#include "core/sizing/computebuffer.h"

#include "core/sizing/backendcompute.h"
#include "core/sizing/kvrotation.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {
namespace {

using Width = std::uint64_t; // floats per ubatch token

// Qwen3-Next / Qwen3.5: attn_q also yields the output gate (2 * n_head * head_dim), which stays
// live through the attention (src/models/qwen35.cpp).
bool gatedAttention(const ModelInfo& model) {
    const std::string_view arch = model.architecture;
    return arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe";
}

bool hasSharedExperts(const ModelInfo& model) {
    if (model.sharedExpertFeedForwardLength > 0) {
        return true;
    }
    return std::any_of(model.tensors.begin(), model.tensors.end(), [](const TensorSummary& tensor) {
        return tensor.name.find("_shexp") != std::string::npos;
    });
}

// What the FFN of each layer is made of, from its tensors (one walk over every tensor).
struct LayerFfn {
    bool experts = false;         // routed experts (ffn_*_exps)
    bool gate = false;            // a separate ffn_gate
    std::uint64_t upRows = 0;     // ne[1] of ffn_up: n_ff, or 2 n_ff when it holds gate and up (Phi-3)
    std::uint64_t expertRows = 0; // ne[1] * ne[2] of ffn_up_exps: n_ff_exp * n_expert
};

// "blk.N.ffn_up.weight" -> "ffn_up.weight". Comparing whole base names (length first) instead
// of suffixes keeps most tensors from reaching memcmp: this walk runs on every estimate.
std::string_view blockBaseName(std::string_view name) {
    const auto dot = name.find('.', 4);
    return dot == std::string_view::npos ? std::string_view{} : name.substr(dot + 1);
}

std::vector<LayerFfn> layerFfns(const ModelInfo& model) {
    std::vector<LayerFfn> out(model.layers.size());
    for (const auto& tensor : model.tensors) {
        if (tensor.layer < 0 || static_cast<std::size_t>(tensor.layer) >= out.size()) {
            continue;
        }
        LayerFfn& ffn = out[static_cast<std::size_t>(tensor.layer)];
        ffn.experts = ffn.experts || tensor.expert;
        const std::string_view base = blockBaseName(tensor.name);
        if (base == "ffn_gate.weight") {
            ffn.gate = true;
        } else if (base == "ffn_up.weight") {
            ffn.upRows = tensor.rows();
        } else if (base == "ffn_up_exps.weight") {
            ffn.expertRows = tensor.rows();
        }
    }
    return out;
}

// command-r.cpp, cohere2.cpp, cohere2moe.cpp: attention and FFN read the same norm and are
// added at the end, so the attention output (n_embd per token) waits through the FFN.
bool parallelAttentionAndFfn(const ModelInfo& model) {
    const std::string_view arch = model.architecture;
    return arch == "command-r" || arch == "cohere2" || arch == "cohere2moe";
}

// Dense FFN (llm_graph_context::build_ffn): up, gate and the GLU output, n_ff each. They fit the
// base's holes while n_ff <= n_embd (two of them) or <= 2 n_embd (one). Fitted: 1B 5e+3f,
// 8B 5e+3f, Gemma-3 5e+3f, n_ff = n_embd 5e+f, n_ff = 1.5/2 n_embd 5e+2f. Without a gate
// (Nemotron-H's squared ReLU, GELU MLPs) only up is live, the activation runs in place: 5e+f
// (measured on nemotron_h with n_ff 6144-21504).
// MoE (build_moe_ffn): up/gate/GLU of n_used experts (3 u f) land on top, except that without
// a shared expert they fit the holes while u f <= n_embd; the experts' outputs (u n_embd) reuse
// the freed up+gate block when u e <= 2 u f. Fitted on qwen35moe (u 4-16, f 128-1024, e 2048/
// 4096, with a shared expert) and qwen3moe (u 2-8, f 128-2880: Qwen3-30B/235B, gpt-oss shapes).
// Jamba has no expert_feed_forward_length: its experts' n_ff comes from ffn_up_exps.
// denseOnly: the blocks without routed experts (DeepSeek's leading dense blocks), whose FFN stays
// on a GPU that refuses the expert tensors (gpucompute.cpp).
Width feedForwardWidth(const ModelInfo& model, bool denseOnly) {
    const Width e = model.embeddingLength;
    const std::vector<LayerFfn> ffns = layerFfns(model);
    const bool anyExperts =
        std::any_of(ffns.begin(), ffns.end(), [](const LayerFfn& f) { return f.experts; });
    // Only MoE blocks read it, and a dense model would scan every tensor name for nothing.
    const bool shared = model.expertUsedCount > 0 && anyExperts && hasSharedExperts(model);
    const Width parallel = parallelAttentionAndFfn(model) ? e : 0;
    Width widest = 0;
    for (std::size_t il = 0; il < model.layers.size() && il < model.trunkLayerCount(); ++il) {
        const LayerFfn& ffn = ffns[il];
        Width expertFf = model.expertFeedForwardLength;
        if (expertFf == 0 && model.expertCount > 0) {
            expertFf = ffn.expertRows / model.expertCount;
        }
        Width width = 0;
        if (denseOnly && ffn.experts) {
            continue;
        }
        if (ffn.experts && model.expertUsedCount > 0 && expertFf > 0) {
            const Width uf = Width{model.expertUsedCount} * expertFf;
            const Width ue = Width{model.expertUsedCount} * e;
            const bool expertsOnTop = uf > e || shared;
            width = 5 * e + (expertsOnTop ? 3 * uf : 0) + (ue > 2 * uf ? ue : 0);
        } else if (const Width f = model.layers[il].feedForwardLength; f > 0) {
            const bool ungated = !ffn.gate && ffn.upRows == f;
            const Width onTop = ungated ? 1 : f <= e ? 1 : f <= 2 * e ? 2 : 3;
            width = 5 * e + onTop * f;
        }
        widest = std::max(widest, width > 0 ? width + parallel : 0);
    }
    return widest;
}

// Attention (build_attn_mha), q = n_head * head_dim_k, kv = n_head_kv * (head_dim_k + head_dim_v).
// FA off: 5e + kv + q (q <= e, it fits a hole) or 2q, plus the gate. Fitted on 10 shapes
// (heads 8-64, head dims 64-256, GQA 1-16) and qwen35 (3 shapes). FA on: 5e + max(q or 2q plus
// 2q for a gate, 2 kv), from 4 shapes where attention, not the FFN, is the peak.
Width attentionWidth(const ModelInfo& model, bool flashAttention) {
    const Width e = model.embeddingLength;
    const bool gated = gatedAttention(model);
    Width widest = 0;
    for (const auto& layer : model.layers) {
        if (!layer.hasKv || layer.attention == AttentionKind::None) {
            continue;
        }
        const Width q = Width{layer.headCount} * layer.keyHeadDim;
        const Width kv = Width{layer.headCountKv} * (Width{layer.keyHeadDim} + layer.valueHeadDim);
        const Width queries = q <= e ? q : 2 * q;
        const Width width = flashAttention ? 5 * e + std::max(queries + (gated ? 2 * q : 0), 2 * kv)
                                           : 5 * e + kv + queries + (gated ? q : 0);
        widest = std::max(widest, width);
    }
    return widest;
}

// Every recurrent family: the gated-delta-net form first fitted on qwen35 (the conv input twice
// plus the state work), with their own widths; not calibrated.
Width recurrentWidth(const ModelInfo& model) {
    const Width e = model.embeddingLength;
    bool any = false;
    for (const auto& layer : model.layers) {
        any = any || (layer.recurrent && !layer.nextn);
    }
    if (!any) {
        return 0;
    }
    const Width inner = model.ssmInnerSize > 0 ? model.ssmInnerSize : 2 * e;
    const Width conv = inner + 2 * Width{model.ssmGroupCount} * model.ssmStateSize;
    return 5 * e + 2 * conv + inner / 4;
}

std::uint64_t maxHeads(const ModelInfo& model, bool swaCache) {
    std::uint64_t heads = 0;
    for (const auto& layer : model.layers) {
        const bool swa =
            layer.attention == AttentionKind::SlidingWindow || layer.attention == AttentionKind::Chunked;
        if (layer.hasKv && swa == swaCache) {
            heads = std::max<std::uint64_t>(heads, layer.headCount);
        }
    }
    return heads;
}

std::uint64_t logitsBytes(const ModelInfo& model, const ResolvedContext& context) {
    // sched_reserve: n_outputs = min(n_tokens, n_outputs_max) and the server asks for one per slot.
    return std::uint64_t{model.vocabularySize} * std::min(context.nUbatch, context.nOutputs) * 4;
}

} // namespace

ComputeWidths computeWidths(const ModelInfo& model) {
    ComputeWidths out;
    out.feedForward = feedForwardWidth(model, false);
    out.denseFeedForward = feedForwardWidth(model, true);
    out.attentionFlash = attentionWidth(model, true);
    out.attentionNoFlash = attentionWidth(model, false);
    out.recurrent = recurrentWidth(model);
    out.fullCacheHeads = maxHeads(model, false);
    out.swaCacheHeads = maxHeads(model, true);
    out.fullCacheRotation = kvRotationShape(model, false);
    out.swaCacheRotation = kvRotationShape(model, true);
    for (const auto& layer : model.layers) {
        if (layer.hasKv) {
            out.widestKvRowValues = std::max<std::uint64_t>(
                out.widestKvRowValues,
                std::uint64_t{layer.headCountKv} * (std::uint64_t{layer.keyHeadDim} + layer.valueHeadDim));
        }
    }
    return out;
}

ComputeBreakdown blockComputeBytes(const ModelInfo& model, const ServerSettings& settings,
                                   const ResolvedContext& context, const KvPlan& kv,
                                   const ComputeDevice& device) {
    return blockComputeBytes(model, computeWidths(model), settings, context, kv, device);
}

ComputeBreakdown blockComputeBytes(const ModelInfo& model, const ComputeWidths& widths,
                                   const ServerSettings& settings, const ResolvedContext& context,
                                   const KvPlan& kv, const ComputeDevice& device) {
    ComputeBreakdown out;
    const std::uint64_t ub = reserveTokens(context);
    const bool fa = context.flashAttention;
    // Masks: one per cache (iSWA keeps two), [n_kv, n_tokens/n_stream, 1, n_stream], f16 for FA
    // and f32 without (src/llama-graph.cpp build_attn_inp_kv). With several streams n_kv is the
    // cells of one stream, so the mask is cells_per_stream * n_ubatch either way.
    std::uint64_t kqBytes = 0;
    std::uint64_t widestCacheCells = 0;
    for (const auto& cache : kv.caches) {
        out.maskBytes += std::uint64_t{cache.cells} * ub * (fa ? 2 : 4);
        widestCacheCells =
            std::max<std::uint64_t>(widestCacheCells, std::uint64_t{cache.cells} * cache.streams);
        if (!fa) {
            // KQ and its soft_max (in place): [n_kv, n_tokens, n_head] f32 for the widest layer.
            const std::uint64_t heads = cache.swa ? widths.swaCacheHeads : widths.fullCacheHeads;
            kqBytes = std::max(kqBytes, std::uint64_t{cache.cells} * ub * heads * 4);
        }
    }
    out.maskBytes *= device.maskCopies;

    const std::uint64_t perWidth = ub * 4;
    out.feedForwardBytes = perWidth * widths.feedForward;
    out.attentionBytes =
        kv.caches.empty() ? 0 : perWidth * (fa ? widths.attentionFlash : widths.attentionNoFlash) + kqBytes;
    out.recurrentBytes = perWidth * widths.recurrent;
    out.logitsBytes = logitsBytes(model, context);
    // The logits [n_vocab, n_outputs] come last; they reuse the masks' blocks once those die and
    // only land on top when larger (measured: 64 slots x 262k vocab adds them, 16 slots do not).
    if (out.logitsBytes > out.maskBytes) {
        out.outputBytes = perWidth * 5 * model.embeddingLength + out.logitsBytes;
    }
    out.inputBytes = ub * 32; // inp_tokens, inp_pos, out_ids ...: the 0.02 MiB at ub 512
    for (const auto& cache : kv.caches) {
        out.inputBytes +=
            kvRotationBytes(cache.swa ? widths.swaCacheRotation : widths.fullCacheRotation, settings);
    }

    // GPU-only terms.
    // CUDA/HIP flash attention's f16 copies of a quantized K/V (backendcompute.h).
    out.gpuExtraBytes += flashAttentionF16CopyBytes(device.backend, generationOfBuild(settings.llamaBuild),
                                                    fa, settings.cacheTypeK, settings.cacheTypeV,
                                                    widestCacheCells, widths.widestKvRowValues);
    // ggml-backend.cpp: ops on host weights run on the GPU when the batch is >= 32 tokens
    // (GGML_OP_OFFLOAD_MIN_BATCH); the weight is copied into the GPU's compute buffer.
    if (device.backend != Backend::Cpu && ub >= 32) {
        out.gpuExtraBytes += device.opOffloadBytes;
    }

    const std::uint64_t activations =
        std::max({out.feedForwardBytes, out.attentionBytes, out.recurrentBytes});
    out.totalBytes = std::max(activations + out.maskBytes, out.outputBytes + out.maskBytes) + out.inputBytes +
                     out.gpuExtraBytes;
    return out;
}

std::uint64_t outputOnlyComputeBytes(const ModelInfo& model, const ResolvedContext& context) {
    // The hidden state of the output tokens, its norm and the logits.
    return reserveTokens(context) * 4 * 2 * model.embeddingLength + logitsBytes(model, context);
}

std::uint64_t inputOnlyComputeBytes(const ModelInfo& model, const ResolvedContext& context) {
    // get_rows(token_embd, tokens) on the CPU: one n_embd row per ubatch token.
    return reserveTokens(context) * 4 * model.embeddingLength;
}

} // namespace llamafit

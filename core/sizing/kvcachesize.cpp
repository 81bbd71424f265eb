// KV cache bytes. Restates llama.cpp src/llama-kv-cache.cpp (constructor) and
// src/llama-kv-cache-iswa.cpp (the two cache sizes); §2.2 of llama-cpp-memory.md.
#include "core/sizing/kvcachesize.h"

#include "core/common/units.h"

#include <algorithm>

namespace llamafit {
namespace {

bool inMainCache(const ModelInfo& model, std::size_t il) {
    const LayerInfo& layer = model.layers[il];
    // llama-kv-cache.cpp: only layers with has_kv(il) get tensors; NextN/MTP blocks only get K/V
    // in a separate MTP context (not modelled), so they are filtered out of the main cache.
    return layer.hasKv && !layer.nextn && layer.attention != AttentionKind::None &&
           il < model.trunkLayerCount();
}

} // namespace

std::uint32_t swaCellsPerStream(const ModelInfo& model, const ServerSettings& settings,
                                const ResolvedContext& context) {
    if (settings.swaFull) {
        return context.nCtxSeq; // --swa-full: "set the SWA cache size to be equal to the base cache size"
    }
    // llama-kv-cache-iswa.cpp: GGML_PAD(min(size_base, n_swa*(unified ? n_seq_max : 1) + n_ubatch), 256);
    // the window is padded by the ubatch, not the batch.
    const std::uint64_t window =
        static_cast<std::uint64_t>(model.slidingWindow) * (context.kvUnified ? context.nSeqMax : 1) +
        context.nUbatch;
    return static_cast<std::uint32_t>(padTo(std::min<std::uint64_t>(context.nCtxSeq, window), 256));
}

std::optional<std::size_t> KvPlan::cacheOf(std::size_t il) const {
    const bool swa = il < layerInSwaCache.size() && layerInSwaCache[il];
    const auto cache =
        std::find_if(caches.begin(), caches.end(), [&](const KvCacheEstimate& c) { return c.swa == swa; });
    return cache == caches.end() ? std::nullopt : std::optional<std::size_t>(cache - caches.begin());
}

KvPlan sizeKvCaches(const ModelInfo& model, const ServerSettings& settings, const ResolvedContext& context) {
    KvPlan plan;
    plan.layerBytes.assign(model.layers.size(), 0);
    plan.layerInSwaCache.assign(model.layers.size(), false);

    bool anyKv = false;
    bool anySwa = false;
    std::uint64_t vWidthMax = 0;
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        const LayerInfo& layer = model.layers[il];
        // hparams.n_embd_v_gqa_max(): over every layer of the model.
        vWidthMax = std::max<std::uint64_t>(vWidthMax, std::uint64_t{layer.headCountKv} * layer.valueHeadDim);
        if (inMainCache(model, il)) {
            anyKv = true;
            anySwa = anySwa || layer.inSwaCache();
        }
    }
    if (!anyKv) {
        return plan;
    }

    const std::uint32_t streams = context.kvUnified ? 1 : context.nSeqMax;
    // Each K/V tensor is [n_embd_gqa, kv_size = n_ctx_seq, n_stream] (llama-kv-cache.cpp).
    KvCacheEstimate full{false, context.nCtxSeq, 0, streams, settings.cacheTypeK, settings.cacheTypeV, 0, 0};
    KvCacheEstimate swa{true,
                        anySwa ? swaCellsPerStream(model, settings, context) : 0,
                        0,
                        streams,
                        settings.cacheTypeK,
                        settings.cacheTypeV,
                        0,
                        0};

    // v_trans = !flash_attn, decided when the cache is created (FA "auto" is already on then).
    // A transposed V pads every layer to n_embd_v_gqa_max when widths differ ([TAG_V_CACHE_VARIABLE]).
    const bool vTransposed = !context.flashAttention;
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        if (!inMainCache(model, il)) {
            continue;
        }
        const LayerInfo& layer = model.layers[il];
        KvCacheEstimate& cache = layer.inSwaCache() ? swa : full;
        const std::uint64_t cells = std::uint64_t{cache.cells} * streams;
        const std::uint64_t kWidth = std::uint64_t{layer.headCountKv} * layer.keyHeadDim;
        const std::uint64_t vWidth =
            vTransposed ? vWidthMax : std::uint64_t{layer.headCountKv} * layer.valueHeadDim;
        const std::uint64_t kBytes = cells * ggmlRowBytes(settings.cacheTypeK, kWidth);
        // MLA: "has_v = !is_mla" -- V is a view of K, no tensor.
        const std::uint64_t vBytes = model.mla ? 0 : cells * ggmlRowBytes(settings.cacheTypeV, vWidth);
        cache.layers += 1;
        cache.kBytes += kBytes;
        cache.vBytes += vBytes;
        plan.layerBytes[il] = kBytes + vBytes;
        plan.layerInSwaCache[il] = layer.inSwaCache();
    }
    // llama_kv_cache_iswa always makes both caches; a plain model has only the base cache.
    plan.caches.push_back(full);
    if (anySwa) {
        plan.caches.push_back(swa);
    }
    return plan;
}

} // namespace llamafit

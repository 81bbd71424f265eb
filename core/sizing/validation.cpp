// validateSettings() and allowedCacheTypes(): the combinations llama-server refuses before it
// allocates anything. Restates llama.cpp common/arg.cpp (kv_cache_types) and
// src/llama-context.cpp llama_init_from_model (the MLA, quantized-V and block-size checks).
#include "core/sizing/estimator.h"
#include "core/sizing/tensorpattern.h"

#include <algorithm>
#include <tuple>

namespace llamafit {
namespace {

std::string typeList() {
    std::string out;
    for (GgmlType type : allowedCacheTypes()) {
        out += (out.empty() ? "" : ", ") + std::string(ggmlTypeName(type));
    }
    return out;
}

std::string name(GgmlType type) {
    return std::string(ggmlTypeName(type));
}

// llama-context.cpp: with FA not disabled, every layer's head dim must be a multiple of the block.
Result<bool> checkHeadDims(const ModelInfo& model, GgmlType type, bool key) {
    const auto& traits = ggmlTypeTraits(type);
    for (std::uint32_t il = 0; il < model.trunkLayerCount() && il < model.layers.size(); ++il) {
        const LayerInfo& layer = model.layers[il];
        const std::uint32_t headDim = key ? layer.keyHeadDim : layer.valueHeadDim;
        if (headDim % traits.blockSize != 0) {
            return makeError("settings.block-size-mismatch",
                             std::string(key ? "K" : "V") + " cache type " + name(type) +
                                 " with block size " + std::to_string(traits.blockSize) +
                                 " does not divide n_embd_head_" + (key ? "k" : "v") + "=" +
                                 std::to_string(headDim),
                             {key ? Setting::CacheTypeK : Setting::CacheTypeV, Setting::FlashAttention});
        }
    }
    return true;
}

// With -fa off ggml only needs whole blocks per cache row (ggml_row_size asserts it).
Result<bool> checkRowWidths(const ModelInfo& model, GgmlType type, bool key) {
    const auto& traits = ggmlTypeTraits(type);
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        const LayerInfo& layer = model.layers[il];
        if (!layer.hasKv) {
            continue;
        }
        const std::uint64_t width =
            std::uint64_t{layer.headCountKv} * (key ? layer.keyHeadDim : layer.valueHeadDim);
        if (width % traits.blockSize != 0) {
            return makeError("settings.block-size-mismatch",
                             std::string(key ? "K" : "V") + " cache type " + name(type) +
                                 " with block size " + std::to_string(traits.blockSize) +
                                 " does not divide the " + (key ? "K" : "V") + " row of layer " +
                                 std::to_string(il) + " (n_embd_" + (key ? "k" : "v") +
                                 "_gqa=" + std::to_string(width) + ")",
                             {key ? Setting::CacheTypeK : Setting::CacheTypeV});
        }
    }
    return true;
}

} // namespace

const std::vector<GgmlType>& allowedCacheTypes() {
    // common/arg.cpp kv_cache_types; the 0.7.0 --help lists the same nine.
    static const std::vector<GgmlType> types = {GgmlType::F32,    GgmlType::F16,  GgmlType::BF16,
                                                GgmlType::Q8_0,   GgmlType::Q4_0, GgmlType::Q4_1,
                                                GgmlType::IQ4_NL, GgmlType::Q5_0, GgmlType::Q5_1};
    return types;
}

Result<bool> validateSettings(const ModelInfo& model, const ServerSettings& settings) {
    const auto& allowed = allowedCacheTypes();
    for (const auto& [flag, type, setting] : {std::tuple{"-ctk", settings.cacheTypeK, Setting::CacheTypeK},
                                              std::tuple{"-ctv", settings.cacheTypeV, Setting::CacheTypeV}}) {
        if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) {
            return makeError("settings.unsupported-cache-type",
                             std::string(flag) + " " + name(type) +
                                 ": Unsupported cache type (allowed: " + typeList() + ")",
                             {setting});
        }
    }
    if (settings.parallelSlots && *settings.parallelSlots == 0) {
        return makeError("settings.bad-value", "-np 0: at least one slot is needed", {Setting::Parallel});
    }
    if (settings.batchTokens == 0 || settings.ubatchTokens == 0) {
        return makeError("settings.bad-value", "-b and -ub must be at least 1",
                         {settings.batchTokens == 0 ? Setting::Batch : Setting::Ubatch,
                          settings.batchTokens == 0 ? Setting::Ubatch : Setting::Batch});
    }
    for (const auto& item : settings.tensorOverrides) {
        if (auto pattern = compileTensorPattern(item.pattern); !pattern) {
            return pattern.error();
        }
    }

    // llama-context.cpp: "model does not support different K (%s) and V (%s) cache types".
    if (model.mla && settings.cacheTypeK != settings.cacheTypeV) {
        return makeError("settings.mla-kv-types-differ",
                         "model does not support different K (" + name(settings.cacheTypeK) + ") and V (" +
                             name(settings.cacheTypeV) + ") cache types (MLA)",
                         {Setting::CacheTypeK, Setting::CacheTypeV});
    }
    const bool quantizedK = ggmlTypeTraits(settings.cacheTypeK).quantized;
    const bool quantizedV = ggmlTypeTraits(settings.cacheTypeV).quantized;
    // llama-context.cpp forces FA off for Grok before this check, so a quantized V fails there too.
    const bool flashAttentionOff =
        settings.flashAttention == FlashAttention::Off || model.architecture == "grok";
    if (quantizedV && flashAttentionOff) {
        return makeError("settings.quantized-v-needs-fa",
                         "quantized V cache requires flash_attn to be enabled (-ctv " +
                             name(settings.cacheTypeV) + " with -fa off)",
                         {Setting::CacheTypeV, Setting::FlashAttention});
    }
    if (!flashAttentionOff) {
        if (quantizedK) {
            if (auto ok = checkHeadDims(model, settings.cacheTypeK, true); !ok.ok()) {
                return ok.error();
            }
        }
        if (quantizedV) {
            if (auto ok = checkHeadDims(model, settings.cacheTypeV, false); !ok.ok()) {
                return ok.error();
            }
        }
    } else if (quantizedK) {
        if (auto ok = checkRowWidths(model, settings.cacheTypeK, true); !ok.ok()) {
            return ok.error();
        }
    }
    return true;
}

} // namespace llamafit

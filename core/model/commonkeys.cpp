// Common hyper-parameters (llama.cpp src/llama-model.cpp llama_model_base::load_hparams).
#include "core/model/commonkeys.h"

#include <algorithm>
#include <tuple>

namespace llamafit {
namespace {

// LLAMA_MAX_LAYERS in src/llama-hparams.h: the per-layer arrays hold 512 entries.
constexpr std::uint32_t kMaxLayers = 512;

Result<std::vector<std::uint32_t>> perLayerOr(const ArchKeys& keys, std::string_view suffix,
                                              std::uint32_t count,
                                              const std::vector<std::uint32_t>& fallback) {
    auto values = keys.perLayer(suffix, count);
    if (!values.ok()) {
        return values.error();
    }
    return values.value() ? *values.value() : fallback;
}

// Head dimensions (load_hparams): key_length / value_length, defaulting to n_embd / n_head()
// where n_head() is layer 0's head count; SWA layers use key_length_swa / value_length_swa.
Result<bool> readHeadDims(const ArchitectureRules& rules, const ArchKeys& keys, bool known, CommonKeys& c,
                          std::vector<std::string>& warnings) {
    std::uint32_t headsForDefault = c.heads.empty() ? 0 : c.heads[0];
    if (headsForDefault == 0) {
        // llama.cpp would set every head dim to 0 here; a hybrid with a recurrent layer 0 and an
        // array head_count is the only way to get here with attention layers, so use the first
        // attending layer instead of sizing its K/V as zero.
        for (const auto h : c.heads) {
            if (h > 0) {
                headsForDefault = h;
                warnings.push_back(keys.key("attention.head_count") +
                                   " is 0 for layer 0: head dims default to n_embd / " + std::to_string(h) +
                                   " (the first non-zero head count); llama.cpp would use 0");
                break;
            }
        }
    }
    const std::uint32_t defaultDim = headsForDefault > 0 ? c.embd / headsForDefault : 0;
    struct Dim {
        std::string_view suffix;
        std::uint32_t* target;
        std::uint32_t fallback;
    };
    for (const Dim& dim : {Dim{"attention.key_length", &c.keyFull, defaultDim},
                           Dim{"attention.value_length", &c.valueFull, defaultDim}}) {
        auto value = keys.uint32(dim.suffix);
        if (!value.ok()) {
            return value.error();
        }
        *dim.target = value.value().value_or(dim.fallback);
        if (!known && !value.value() && headsForDefault > 0) {
            warnings.push_back(keys.key(dim.suffix) +
                               " is missing: assumed n_embd / head_count = " + std::to_string(defaultDim));
        }
    }
    for (const Dim& dim : {Dim{"attention.key_length_swa", &c.keySwa, c.keyFull},
                           Dim{"attention.value_length_swa", &c.valueSwa, c.valueFull}}) {
        auto value = keys.uint32(dim.suffix);
        if (!value.ok()) {
            return value.error();
        }
        *dim.target = value.value().value_or(dim.fallback);
    }
    // is_mla(): both *_mla keys non-zero, read only by the MLA architectures (deepseek2.cpp ...).
    const bool hasMlaKeys = keys.uint("attention.key_length_mla").value_or(0) > 0 &&
                            keys.uint("attention.value_length_mla").value_or(0) > 0;
    c.mla = rules.readsMla && hasMlaKeys;
    if (!known && hasMlaKeys) {
        warnings.push_back(
            keys.key("attention.key_length_mla") +
            " is present, but MLA is not assumed for an unknown architecture: K and V are both "
            "sized (an over-estimate if the cache is K-only)");
    }
    return true;
}

} // namespace

Result<CommonKeys> readCommonKeys(const ArchitectureRules& rules, const ArchKeys& keys, bool known,
                                  std::vector<std::string>& warnings) {
    CommonKeys c;
    auto blocks = keys.requiredUint32("block_count", "number of layers");
    if (!blocks.ok()) {
        return blocks.error();
    }
    c.blockCount = blocks.value();
    if (c.blockCount == 0 || c.blockCount > kMaxLayers) {
        return makeError("model.bad-value", keys.key("block_count") + " = " + std::to_string(c.blockCount) +
                                                " is outside 1.." + std::to_string(kMaxLayers) +
                                                " (LLAMA_MAX_LAYERS)");
    }
    auto embd = keys.requiredUint32("embedding_length", "n_embd");
    if (!embd.ok()) {
        return embd.error();
    }
    c.embd = embd.value();
    if (c.embd == 0) {
        return makeError("model.bad-value", keys.key("embedding_length") + " is 0");
    }
    const auto context = keys.uint("context_length");
    if (!context) {
        return makeError("model.missing-key", "key not found in model: " + keys.key("context_length") +
                                                  " (training context, required by llama.cpp)");
    }
    c.context = *context;

    auto nextn = keys.uint32("nextn_predict_layers");
    if (!nextn.ok()) {
        return nextn.error();
    }
    if (rules.readsNextn) {
        c.nextnCount = nextn.value().value_or(0);
    } else if (nextn.value().value_or(0) > 0) {
        warnings.push_back(keys.key("nextn_predict_layers") + " is ignored: llama.cpp does not read it for " +
                           keys.architecture() + ", so every block counts as a trunk layer");
    }
    if (c.nextnCount >= c.blockCount) {
        return makeError("model.bad-value", keys.key("nextn_predict_layers") + " = " +
                                                std::to_string(c.nextnCount) + " must be below block_count " +
                                                std::to_string(c.blockCount));
    }
    if (!known && c.nextnCount > 0) {
        warnings.push_back("assumed the last " + std::to_string(c.nextnCount) +
                           " block(s) are NextN/MTP layers without KV in the main cache");
    }

    // get_key_or_arr(..., n_layer()) runs before any NextN split: arrays have block_count entries.
    const std::vector<std::uint32_t> zeros(c.blockCount, 0);
    for (auto [suffix, target, fallback] : {std::tuple{"feed_forward_length", &c.ff, &zeros},
                                            std::tuple{"attention.head_count", &c.heads, &zeros}}) {
        auto values = perLayerOr(keys, suffix, c.blockCount, *fallback);
        if (!values.ok()) {
            return values.error();
        }
        *target = std::move(values.value());
    }
    // "n_head_kv is optional, default to n_head"
    auto kv = perLayerOr(keys, "attention.head_count_kv", c.blockCount, c.heads);
    if (!kv.ok()) {
        return kv.error();
    }
    c.kvHeads = std::move(kv.value());
    if (!known && !keys.has("attention.head_count_kv")) {
        warnings.push_back(keys.key("attention.head_count_kv") + " is missing: assumed equal to head_count");
    }
    if (rules.mix != LayerMixRule::PureRecurrent && *std::max_element(c.heads.begin(), c.heads.end()) == 0) {
        return makeError("model.bad-value", keys.key("attention.head_count") +
                                                " is 0 or missing for every layer; a " + keys.architecture() +
                                                " model needs attention heads");
    }
    auto dims = readHeadDims(rules, keys, known, c, warnings);
    if (!dims.ok()) {
        return dims.error();
    }
    return c;
}

} // namespace llamafit

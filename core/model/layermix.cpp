// Attention / recurrent split per block. Each branch names the llama.cpp code it restates.
#include "core/model/layermix.h"

namespace llamafit {
namespace {

// Qwen3-Next, Qwen3.5, Qwen3.5-MoE, MiniMax-01 (src/models/qwen35moe.cpp load_arch_hparams):
// attention.recurrent_layers (scalar or n_layer_all array) wins; else a layer is recurrent
// iff (l+1) % full_attention_interval != 0. Only trunk layers are recurrent: NextN blocks
// are dense. create_memory keeps attention layers il < n_layer() && !is_recr(il) in the cache.
Result<std::vector<bool>> intervalRecurrence(const ArchitectureRules& rules, const ArchKeys& keys,
                                             const LayerMixInput& in) {
    std::vector<bool> recurrent(in.blockCount, false);
    auto explicitLayers = keys.perLayer("attention.recurrent_layers", in.blockCount);
    if (!explicitLayers.ok()) {
        return explicitLayers.error();
    }
    if (explicitLayers.value()) {
        const auto& flags = *explicitLayers.value();
        for (std::uint32_t l = 0; l < in.trunkCount; ++l) {
            recurrent[l] = flags[l] != 0;
        }
        return recurrent;
    }
    auto intervalKey = keys.uint32("full_attention_interval");
    if (!intervalKey.ok()) {
        return intervalKey.error();
    }
    const std::uint32_t interval = intervalKey.value().value_or(rules.defaultAttentionInterval);
    if (interval == 0) {
        return makeError("model.bad-value", keys.key("full_attention_interval") +
                                                " is 0; llama.cpp takes (l+1) % interval, so it must be > 0");
    }
    for (std::uint32_t l = 0; l < in.trunkCount; ++l) {
        recurrent[l] = (l + 1) % interval != 0;
    }
    return recurrent;
}

} // namespace

Result<LayerMix> planLayerMix(const ArchitectureRules& rules, const ArchKeys& keys, const LayerMixInput& in) {
    const auto& kv = *in.headCountKv;
    const auto& ff = *in.feedForward;
    LayerMix mix{std::vector<bool>(in.blockCount, false), std::vector<bool>(in.blockCount, false),
                 std::vector<bool>(in.blockCount, false)};

    switch (rules.mix) {
    case LayerMixRule::Transformer:
        // Plain llama_kv_cache; a block with head_count_kv 0 has a zero-width K/V, so it is
        // treated as having no attention.
        for (std::uint32_t l = 0; l < in.blockCount; ++l) {
            mix.attends[l] = kv[l] > 0;
            mix.inMainKvCache[l] = mix.attends[l];
        }
        break;
    case LayerMixRule::PureRecurrent:
        // llm_arch_is_recurrent: llama_memory_recurrent over l < n_layer(), no KV cache at all.
        for (std::uint32_t l = 0; l < in.trunkCount; ++l) {
            mix.recurrent[l] = true;
        }
        break;
    case LayerMixRule::AttentionInterval: {
        auto recurrence = intervalRecurrence(rules, keys, in);
        if (!recurrence.ok()) {
            return recurrence.error();
        }
        for (std::uint32_t l = 0; l < in.blockCount; ++l) {
            mix.recurrent[l] = recurrence.value()[l];
            mix.attends[l] = !mix.recurrent[l];
            mix.inMainKvCache[l] = mix.attends[l];
        }
        break;
    }
    case LayerMixRule::ZeroKvHeads:
        // jamba.cpp / granite-hybrid.cpp / lfm2.cpp ...: is_recr(l) = head_count_kv(l) == 0 for
        // l < n_layer(); llama_memory_hybrid's default filters are !is_recr / is_recr.
        for (std::uint32_t l = 0; l < in.blockCount; ++l) {
            mix.recurrent[l] = l < in.trunkCount && kv[l] == 0;
            mix.attends[l] = !mix.recurrent[l] && kv[l] > 0;
            mix.inMainKvCache[l] = mix.attends[l];
        }
        break;
    case LayerMixRule::NemotronH:
        // nemotron-h.cpp: is_recr = l < n_layer() && kv == 0 && ff == 0; create_memory:
        // attention iff !is_recr && ff == 0, recurrent iff is_recr && ff == 0; ff > 0 is an MLP block.
        for (std::uint32_t l = 0; l < in.blockCount; ++l) {
            const bool isRecurrent = l < in.trunkCount && kv[l] == 0 && ff[l] == 0;
            mix.recurrent[l] = isRecurrent;
            mix.attends[l] = !isRecurrent && ff[l] == 0 && kv[l] > 0;
            mix.inMainKvCache[l] = mix.attends[l];
        }
        break;
    case LayerMixRule::EveryLayerBoth:
        // Falcon-H1: filter_attn and filter_recr both return true; RS walks l < n_layer().
        for (std::uint32_t l = 0; l < in.blockCount; ++l) {
            mix.recurrent[l] = l < in.trunkCount;
            mix.attends[l] = kv[l] > 0;
            mix.inMainKvCache[l] = mix.attends[l];
        }
        break;
    }
    // NextN/MTP blocks only get K/V inside a separate MTP context. b10587's create_memory still
    // kept them in the main cache for some architectures (e.g. glm4, no layer filter), but the
    // b11669 binary we match logs "2 layers" for a 3-block glm4 with nextn_predict_layers = 1.
    for (std::uint32_t l = in.trunkCount; l < in.blockCount; ++l) {
        mix.inMainKvCache[l] = false;
    }
    return mix;
}

} // namespace llamafit

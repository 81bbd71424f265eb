// interpretModel: the common hyper-parameters of llama.cpp src/llama-model.cpp
// llama_model_base::load_hparams, then the per-architecture layer rules (layermix.cpp,
// swapattern.cpp, recurrentwidths.cpp) and the tensor roles (tensorroles.cpp).
#include "core/model/modelinterpreter.h"

#include "core/model/architecturerules.h"
#include "core/model/archkeys.h"
#include "core/model/commonkeys.h"
#include "core/model/layermix.h"
#include "core/model/recurrentwidths.h"
#include "core/model/swapattern.h"
#include "core/model/tensorroles.h"

#include <algorithm>

namespace llamafit {
namespace {

// Unknown architectures: every block full attention; trailing NextN blocks (if the key says
// so) kept out of the main cache, as llama.cpp does for the architectures it knows.
constexpr ArchitectureRules kGenericRules{.name = "", .readsNextn = true};

Result<bool> readExperts(const ArchKeys& keys, ModelInfo& info) {
    struct Field {
        std::string_view suffix;
        std::uint32_t* target;
    };
    for (const Field& field :
         {Field{"expert_count", &info.expertCount}, Field{"expert_used_count", &info.expertUsedCount},
          Field{"expert_feed_forward_length", &info.expertFeedForwardLength},
          Field{"expert_shared_feed_forward_length", &info.sharedExpertFeedForwardLength}}) {
        auto value = keys.uint32(field.suffix);
        if (!value.ok()) {
            return value.error();
        }
        *field.target = value.value().value_or(0);
    }
    // The routing keys load_hparams (expert_group_count) and the MoE architectures'
    // load_arch_hparams read, each optional; the graph builders pick what their architecture uses.
    info.expertWeightsScale =
        static_cast<float>(keys.file().getFloat(keys.key("expert_weights_scale")).value_or(0.0));
    info.expertWeightsNorm = keys.file().getBool(keys.key("expert_weights_norm")).value_or(false);
    info.expertGatingFunc = static_cast<std::uint32_t>(keys.uint("expert_gating_func").value_or(0));
    info.expertGroupCount = static_cast<std::uint32_t>(keys.uint("expert_group_count").value_or(0));
    info.attentionTemperatureScale =
        static_cast<float>(keys.file().getFloat(keys.key("attention.temperature_scale")).value_or(0.0));
    info.embeddingScale = static_cast<float>(keys.file().getFloat(keys.key("embedding_scale")).value_or(0.0));
    info.residualScale = static_cast<float>(keys.file().getFloat(keys.key("residual_scale")).value_or(0.0));
    info.logitScale = static_cast<float>(keys.file().getFloat(keys.key("logit_scale")).value_or(0.0));
    info.ropeScalingFinetuned = keys.file().getBool(keys.key("rope.scaling.finetuned")).value_or(true);
    info.deepstackLayers = static_cast<std::uint32_t>(keys.uint("n_deepstack_layers").value_or(0));
    if (const auto sections = keys.file().getIntArray(keys.key("rope.dimension_sections"))) {
        info.multiSectionRope = sections->size() >= 2 && (*sections)[0] > 0 && (*sections)[1] > 0;
    }
    // load_hparams asserts n_expert_used <= n_expert, and n_expert_used > 0 when n_expert > 0.
    if (info.expertUsedCount > info.expertCount || (info.expertCount > 0 && info.expertUsedCount == 0)) {
        return makeError("model.bad-value", keys.key("expert_used_count") + " = " +
                                                std::to_string(info.expertUsedCount) + " does not fit " +
                                                keys.key("expert_count") + " = " +
                                                std::to_string(info.expertCount));
    }
    return true;
}

// n_vocab: the tokenizer's token list, else <arch>.vocab_size, else token_embd's second dimension.
std::uint32_t vocabularySize(const GgufFile& file, const ArchKeys& keys, std::vector<std::string>& warnings) {
    if (const auto tokens = file.arrayLength("tokenizer.ggml.tokens")) {
        return static_cast<std::uint32_t>(*tokens);
    }
    if (const auto size = keys.uint("vocab_size")) {
        return static_cast<std::uint32_t>(*size);
    }
    if (const auto* embd = file.findTensor("token_embd.weight")) {
        return static_cast<std::uint32_t>(embd->shape[1]);
    }
    warnings.push_back("vocabulary size unknown: no tokenizer.ggml.tokens, " + keys.key("vocab_size") +
                       " or token_embd.weight; output-buffer and logits sizes will read 0");
    return 0;
}

std::string modelName(const GgufFile& file) {
    if (auto name = file.getString("general.name")) {
        return *name;
    }
    if (file.partPaths.empty()) {
        return {};
    }
    std::string path = file.partPaths.front();
    if (const auto slash = path.find_last_of("/\\"); slash != std::string::npos) {
        path = path.substr(slash + 1);
    }
    if (path.size() > 5 && path.substr(path.size() - 5) == ".gguf") {
        path.resize(path.size() - 5);
    }
    return path;
}

void warnUnknownArchitecture(const ArchKeys& keys, const CommonKeys& c, std::vector<std::string>& warnings) {
    warnings.insert(warnings.begin(), "architecture '" + keys.architecture() +
                                          "' has no dedicated rules: generic transformer rules are used "
                                          "(every layer full attention with its own K/V in the main cache)");
    if (keys.has("attention.sliding_window")) {
        warnings.push_back(
            keys.key("attention.sliding_window") +
            " is present but the sliding-window layer pattern of this architecture is unknown: "
            "every layer is sized as full attention (an over-estimate)");
    }
    for (const std::string_view suffix :
         {"ssm.conv_kernel", "ssm.state_size", "wkv.head_size", "shortconv.l_cache"}) {
        if (keys.has(suffix)) {
            warnings.push_back(
                keys.key(suffix) +
                " is present: this looks like a recurrent or hybrid model, but no recurrent state is "
                "sized for an unknown architecture (an under-estimate)");
            break;
        }
    }
    if (std::find(c.kvHeads.begin(), c.kvHeads.end(), 0u) != c.kvHeads.end()) {
        warnings.push_back("layers with " + keys.key("attention.head_count_kv") +
                           " = 0 are assumed to have no attention and no KV");
    }
}

} // namespace

Result<ModelInfo> interpretModel(const GgufFile& file) {
    const auto architecture = file.getString("general.architecture");
    if (!architecture || architecture->empty()) {
        return makeError("model.missing-architecture", "general.architecture is missing or not a string");
    }
    const ArchitectureRules* found = findArchitectureRules(*architecture);
    const bool known = found != nullptr;
    const ArchitectureRules& rules = known ? *found : kGenericRules;
    const ArchKeys keys(file, *architecture);

    ModelInfo info;
    info.architecture = *architecture;
    info.name = modelName(file);
    info.knownArchitecture = known;
    info.fileBytes = file.fileBytes;

    auto common = readCommonKeys(rules, keys, known, info.warnings);
    if (!common.ok()) {
        return common.error();
    }
    const CommonKeys& c = common.value();
    if (!known) {
        warnUnknownArchitecture(keys, c, info.warnings);
    }
    auto experts = readExperts(keys, info);
    if (!experts.ok()) {
        return experts.error();
    }

    auto mix = planLayerMix(rules, keys, LayerMixInput{c.blockCount, c.trunkCount(), &c.kvHeads, &c.ff});
    if (!mix.ok()) {
        return mix.error();
    }
    auto swa = planSwaPattern(
        rules, keys, SwaPatternInput{c.blockCount, c.trunkCount(), &mix.value().attends}, info.warnings);
    if (!swa.ok()) {
        return swa.error();
    }
    auto widths =
        computeRecurrentWidths(rules.state, keys, RecurrentWidthsInput{c.embd, c.heads[0], c.keyFull});
    if (!widths.ok()) {
        return widths.error();
    }

    // has_kv (llama-hparams.cpp): only layers below n_layer_kv_from_start own K/V; the rest
    // reuse an earlier layer's cache (Gemma-3n: 20; Gemma-4: n_layer - shared_kv_layers).
    std::uint32_t kvFromStart =
        rules.kvLayersFromStart >= 0 ? static_cast<std::uint32_t>(rules.kvLayersFromStart) : c.blockCount;
    if (rules.sharedKvLayersKey) {
        auto shared = keys.uint32("attention.shared_kv_layers");
        if (!shared.ok()) {
            return shared.error();
        }
        const std::uint32_t sharedLayers = shared.value().value_or(0);
        if (sharedLayers >= c.blockCount) {
            return makeError("model.bad-value", keys.key("attention.shared_kv_layers") + " = " +
                                                    std::to_string(sharedLayers) +
                                                    " leaves no layer with its own KV");
        }
        kvFromStart = c.blockCount - sharedLayers;
    }

    info.blockCount = c.blockCount;
    info.nextnLayerCount = c.nextnCount;
    info.trainingContext = c.context;
    info.embeddingLength = c.embd;
    info.headCount = *std::max_element(c.heads.begin(), c.heads.end());
    info.vocabularySize = vocabularySize(file, keys, info.warnings);
    info.slidingWindow = swa.value().window;
    info.mla = c.mla;
    info.ssmConvKernel = widths.value().ssmConvKernel;
    info.ssmInnerSize = widths.value().ssmInnerSize;
    info.ssmStateSize = widths.value().ssmStateSize;
    info.ssmGroupCount = widths.value().ssmGroupCount;
    // rwkv6.cpp load_arch_hparams: optional, 0 (never) when absent.
    info.rescaleEveryLayers = static_cast<std::uint32_t>(keys.uint("rescale_every_n_layers").value_or(0));

    info.layers.resize(c.blockCount);
    for (std::uint32_t l = 0; l < c.blockCount; ++l) {
        LayerInfo& layer = info.layers[l];
        const bool swaLayer = swa.value().layers[l];
        layer.nextn = l >= c.trunkCount();
        layer.recurrent = mix.value().recurrent[l];
        layer.attention = !mix.value().attends[l] ? AttentionKind::None
                          : swaLayer              ? swa.value().kind
                                                  : AttentionKind::Full;
        layer.headCount = c.heads[l];
        layer.headCountKv = c.kvHeads[l];
        layer.feedForwardLength = c.ff[l];
        if (layer.attention != AttentionKind::None) {
            layer.keyHeadDim = swaLayer ? c.keySwa : c.keyFull;
            // llama-kv-cache.cpp: an MLA cache has no V tensor (V is a view of K).
            layer.valueHeadDim = c.mla ? 0 : (swaLayer ? c.valueSwa : c.valueFull);
            if (layer.keyHeadDim == 0) {
                return makeError("model.bad-value", "layer " + std::to_string(l) + " attends with " +
                                                        std::to_string(layer.headCountKv) +
                                                        " KV heads but its key head dim is 0");
            }
        }
        layer.hasKv =
            mix.value().inMainKvCache[l] && l < kvFromStart && layer.attention != AttentionKind::None;
        if (layer.recurrent) {
            layer.recurrentConvWidth = widths.value().convWidth;
            layer.recurrentStateWidth = widths.value().stateWidth;
        }
    }

    info.tensors = summarizeTensors(file, info.architecture);
    info.tiedOutput = file.findTensor("output.weight") == nullptr;
    return info;
}

const std::vector<std::string_view>& knownArchitectures() {
    return knownArchitectureNames();
}

} // namespace llamafit

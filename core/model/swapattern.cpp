// Sliding-window layer selection. Sources: llama.cpp src/models/{gemma2,gemma3,gemma3n,gemma4,
// openai-moe,cohere2,cohere2moe,llama4,exaone4,lfm2,...}.cpp load_arch_hparams and
// src/llama-hparams.cpp set_swa_pattern.
#include "core/model/swapattern.h"

namespace llamafit {
namespace {

constexpr std::string_view kPatternKey = "attention.sliding_window_pattern";
constexpr std::string_view kWindowKey = "attention.sliding_window";

struct Activation {
    bool active = false;
    std::uint32_t window = 0;
};

Result<Activation> activation(const ArchitectureRules& rules, const ArchKeys& keys,
                              std::uint32_t trunkCount) {
    auto windowKey = keys.uint32(kWindowKey);
    if (!windowKey.ok()) {
        return windowKey.error();
    }
    const auto& window = windowKey.value();
    switch (rules.swaActivation) {
    case SwaActivation::Always:
        if (!window && rules.defaultSlidingWindow == 0) {
            return makeError("model.missing-key", "key not found in model: " + keys.key(kWindowKey) + " (" +
                                                      std::string(rules.name) +
                                                      " always has sliding-window layers)");
        }
        return Activation{true, window.value_or(rules.defaultSlidingWindow)};
    case SwaActivation::WindowKeyPositive:
        // gemma3.cpp / olmo2.cpp / lfm2.cpp: SWA only when the key exists and is > 0.
        return Activation{window.value_or(0) > 0, window.value_or(0)};
    case SwaActivation::UnlessWindowZero:
        // llama4.cpp: a present 0 turns chunking off; otherwise n_swa is forced to 8192.
        if (window && *window == 0) {
            return Activation{};
        }
        return Activation{true, rules.defaultSlidingWindow};
    case SwaActivation::SixtyFourLayers:
        // exaone4.cpp: only `n_layer() == 64` sets swa_type; the key still overrides n_swa.
        return Activation{trunkCount == 64, window.value_or(rules.defaultSlidingWindow)};
    }
    return Activation{};
}

void markPeriod(std::vector<bool>& layers, std::uint32_t count, std::uint32_t period, bool denseFirst) {
    for (std::uint32_t l = 0; l < count; ++l) {
        layers[l] = isSwaLayerInPeriod(l, period, denseFirst);
    }
}

// A per-layer array (get_key_or_arr into is_swa_impl): one flag per layer, or a scalar that
// fills every layer with its truth value.
Result<bool> markArray(std::vector<bool>& layers, const ArchKeys& keys, std::uint32_t count) {
    auto flags = keys.perLayer(kPatternKey, count);
    if (!flags.ok()) {
        return flags.error();
    }
    if (!flags.value()) {
        return false;
    }
    for (std::uint32_t l = 0; l < count; ++l) {
        layers[l] = (*flags.value())[l] != 0;
    }
    return true;
}

} // namespace

bool isSwaLayerInPeriod(std::uint32_t layer, std::uint32_t period, bool denseFirst) {
    if (period == 0) {
        return true;
    }
    return denseFirst ? layer % period != 0 : layer % period < period - 1;
}

Result<SwaPattern> planSwaPattern(const ArchitectureRules& rules, const ArchKeys& keys,
                                  const SwaPatternInput& in, std::vector<std::string>& warnings) {
    SwaPattern plan;
    plan.kind = rules.swaKind;
    plan.layers.assign(in.blockCount, false);
    if (rules.swa == SwaRule::None) {
        return plan;
    }
    auto act = activation(rules, keys, in.trunkCount);
    if (!act.ok()) {
        return act.error();
    }
    if (!act.value().active) {
        return plan;
    }
    plan.window = act.value().window;

    // The pattern is set over n_layer(); archs that split NextN off later cover every block.
    const std::uint32_t count = rules.swaPatternCoversNextn ? in.blockCount : in.trunkCount;
    const std::string patternKey = keys.key(kPatternKey);
    switch (rules.swa) {
    case SwaRule::None:
        break;
    case SwaRule::Period: {
        // get_key_or_arr(kid, uint32_t&) returns false for an array: the default period stays.
        std::uint32_t period = rules.defaultSwaPeriod;
        if (keys.isArray(kPatternKey)) {
            warnings.push_back(patternKey + " is an array, but llama.cpp reads only a scalar period for " +
                               std::string(rules.name) + "; the default period " + std::to_string(period) +
                               " is used, as llama.cpp does");
        } else {
            auto key = keys.uint32(kPatternKey);
            if (!key.ok()) {
                return key.error();
            }
            period = key.value().value_or(period);
        }
        markPeriod(plan.layers, count, period, rules.swaDenseFirst);
        break;
    }
    case SwaRule::PeriodOrArray: {
        if (keys.isArray(kPatternKey)) {
            auto marked = markArray(plan.layers, keys, count);
            if (!marked.ok()) {
                return marked.error();
            }
            break;
        }
        auto period = keys.uint32(kPatternKey);
        if (!period.ok()) {
            return period.error();
        }
        markPeriod(plan.layers, count, period.value().value_or(rules.defaultSwaPeriod), rules.swaDenseFirst);
        break;
    }
    case SwaRule::LayerArray: {
        auto marked = markArray(plan.layers, keys, count);
        if (!marked.ok()) {
            return marked.error();
        }
        if (!marked.value()) {
            warnings.push_back(patternKey +
                               " is missing: no layer is marked sliding-window (llama.cpp expects "
                               "the per-layer pattern for " +
                               std::string(rules.name) + ")");
        }
        break;
    }
    case SwaRule::AttentionLayers:
        // lfm2.cpp: is_swa(l) = !is_recr(l) once sliding_window > 0.
        for (std::uint32_t l = 0; l < in.trunkCount; ++l) {
            plan.layers[l] = (*in.attends)[l];
        }
        break;
    }

    bool any = false;
    for (const bool flag : plan.layers) {
        any = any || flag;
    }
    if (!any) {
        plan.window = 0;
    }
    return plan;
}

} // namespace llamafit

// The per-architecture rule table. Every row restates what llama.cpp's
// src/models/<arch>.cpp load_arch_hparams and src/llama-model.cpp create_memory do for that
// architecture (read at llama.cpp b10587, the tree llama-cpp-memory.md refers to).
#include "core/model/architecturerules.h"

#include <array>

namespace llamafit {
namespace {

using K = AttentionKind;
using M = LayerMixRule;
using R = RecurrentState;
using S = SwaRule;
using W = SwaActivation;

constexpr ArchitectureRules transformer(std::string_view name) {
    return ArchitectureRules{.name = name};
}

// Transformers with trailing NextN/MTP blocks (<arch>.nextn_predict_layers).
constexpr ArchitectureRules withNextn(std::string_view name) {
    return ArchitectureRules{.name = name, .readsNextn = true};
}

// (l+1) % interval != 0 -> recurrent; NextN blocks are dense attention blocks.
constexpr ArchitectureRules interval(std::string_view name, std::uint32_t defaultInterval,
                                     RecurrentState state, bool readsNextn) {
    return ArchitectureRules{.name = name,
                             .mix = M::AttentionInterval,
                             .defaultAttentionInterval = defaultInterval,
                             .state = state,
                             .readsNextn = readsNextn};
}

constexpr ArchitectureRules hybrid(std::string_view name, LayerMixRule mix, RecurrentState state) {
    return ArchitectureRules{.name = name, .mix = mix, .state = state};
}

constexpr ArchitectureRules recurrent(std::string_view name, RecurrentState state) {
    return ArchitectureRules{.name = name, .mix = M::PureRecurrent, .state = state};
}

// Scalar sliding_window_pattern with a per-architecture default period.
constexpr ArchitectureRules period(std::string_view name, std::uint32_t defaultPeriod,
                                   SwaActivation activation, std::uint32_t defaultWindow,
                                   bool denseFirst = false) {
    return ArchitectureRules{.name = name,
                             .swa = S::Period,
                             .swaActivation = activation,
                             .defaultSwaPeriod = defaultPeriod,
                             .swaDenseFirst = denseFirst,
                             .defaultSlidingWindow = defaultWindow};
}

constexpr std::array kRules = {
    // Plain transformers: every layer full attention, K/V head dims from the common keys.
    transformer("llama"),
    transformer("mistral3"),
    transformer("qwen2"),
    transformer("qwen2moe"),
    transformer("qwen2vl"),
    transformer("qwen3"),
    transformer("qwen3moe"),
    transformer("qwen3vl"),
    transformer("qwen3vlmoe"),
    transformer("gemma"),
    transformer("command-r"),
    transformer("granite"),
    transformer("granitemoe"),
    transformer("starcoder2"),
    transformer("smollm3"),
    transformer("phi2"),
    transformer("olmo"),
    transformer("olmoe"),
    transformer("internlm2"),
    transformer("ernie4_5"),
    transformer("ernie4_5-moe"),
    transformer("seed_oss"),
    transformer("minimax-m2"),
    transformer("falcon"),
    transformer("stablelm"),
    transformer("deepseek"),
    transformer("dots1"),
    transformer("hunyuan-moe"),
    transformer("hunyuan-dense"),
    transformer("apertus"),
    // src/models/phi3.cpp: "Phi SWA is currently disabled" -- sliding_window is read, then dropped.
    transformer("phi3"),

    // NextN readers.
    withNextn("glm4"),
    withNextn("glm4moe"),
    withNextn("bailingmoe2"),
    withNextn("hy_v3"),
    // src/models/deepseek2.cpp: MLA only when key_length_mla and value_length_mla are both set.
    ArchitectureRules{.name = "deepseek2", .readsNextn = true, .readsMla = true},
    ArchitectureRules{.name = "mistral4", .readsNextn = true, .readsMla = true}, // reuses deepseek2's hparams

    // Sliding-window transformers (src/models/<arch>.cpp, set_swa_pattern in llama-hparams.cpp).
    period("gemma2", 2, W::Always, 4096),         // n_swa defaults to 4096, key optional
    period("gemma3", 6, W::WindowKeyPositive, 0), // no sliding_window key: no SWA at all
    period("gpt-oss", 2, W::Always, 0),           // openai-moe.cpp
    period("cohere2", 4, W::Always, 0),
    period("olmo2", 4, W::WindowKeyPositive, 0),
    period("plamo3", 8, W::WindowKeyPositive, 0),
    period("afmoe", 4, W::WindowKeyPositive, 0),
    period("laguna", 4, W::WindowKeyPositive, 0, true), // dense_first: full at l % 4 == 0
    ArchitectureRules{.name = "gemma3n",
                      .swa = S::Period,
                      .defaultSwaPeriod = 5,
                      .kvLayersFromStart = 20}, // gemma3n.cpp hard-codes n_layer_kv_from_start = 20
    ArchitectureRules{.name = "gemma4", .swa = S::LayerArray, .sharedKvLayersKey = true},
    ArchitectureRules{.name = "granite_swa", .swa = S::LayerArray},
    ArchitectureRules{.name = "cohere2moe",
                      .swa = S::PeriodOrArray,
                      .defaultSwaPeriod = 4,
                      .swaDenseFirst = true,
                      .readsNextn = true},
    ArchitectureRules{.name = "mellum",
                      .swa = S::PeriodOrArray,
                      .swaActivation = W::WindowKeyPositive,
                      .defaultSwaPeriod = 4},
    ArchitectureRules{.name = "muse-glimmer", .swa = S::PeriodOrArray, .defaultSwaPeriod = 4},
    // llama4.cpp: chunked attention, n_swa forced to 8192, pattern default 4 (3 chunked, 1 full).
    ArchitectureRules{.name = "llama4",
                      .swa = S::Period,
                      .swaActivation = W::UnlessWindowZero,
                      .swaKind = K::Chunked,
                      .defaultSwaPeriod = 4,
                      .defaultSlidingWindow = 8192},
    // exaone4.cpp: only the 64-layer model interleaves SWA (n_swa 4096 unless the key says otherwise).
    ArchitectureRules{.name = "exaone4",
                      .swa = S::Period,
                      .swaActivation = W::SixtyFourLayers,
                      .defaultSwaPeriod = 4,
                      .defaultSlidingWindow = 4096,
                      .readsNextn = true},
    // exaone-moe.cpp sets the pattern before reading NextN, so it covers the MTP block too.
    ArchitectureRules{.name = "exaone-moe",
                      .swa = S::Period,
                      .defaultSwaPeriod = 4,
                      .swaPatternCoversNextn = true,
                      .readsNextn = true},
    ArchitectureRules{
        .name = "mimo2", .swa = S::LayerArray, .swaPatternCoversNextn = true, .readsNextn = true},
    ArchitectureRules{
        .name = "step35", .swa = S::LayerArray, .swaPatternCoversNextn = true, .readsNextn = true},

    // Hybrids (llm_arch_is_hybrid in src/llama-arch.cpp).
    interval("qwen3next", 4, R::Mamba2, true),
    interval("qwen35", 4, R::Mamba2, true),
    interval("qwen35moe", 4, R::Mamba2, true),
    interval("minimax-01", 8, R::LinearAttention, false), // minimax-01.cpp: default interval 8
    hybrid("jamba", M::ZeroKvHeads, R::Mamba1),
    hybrid("granitehybrid", M::ZeroKvHeads, R::Mamba2),
    hybrid("plamo2", M::ZeroKvHeads, R::Mamba2),
    hybrid("lfm2moe", M::ZeroKvHeads, R::ShortConv),
    ArchitectureRules{.name = "lfm2",
                      .mix = M::ZeroKvHeads,
                      .state = R::ShortConv,
                      .swa = S::AttentionLayers,
                      .swaActivation = W::WindowKeyPositive},
    ArchitectureRules{.name = "kimi-linear", .mix = M::ZeroKvHeads, .state = R::Kda, .readsMla = true},
    ArchitectureRules{.name = "nemotron_h", .mix = M::NemotronH, .state = R::Mamba2, .readsNextn = true},
    ArchitectureRules{.name = "nemotron_h_moe", .mix = M::NemotronH, .state = R::Mamba2, .readsNextn = true},
    hybrid("falcon-h1", M::EveryLayerBoth, R::Mamba2),

    // Pure recurrent (llm_arch_is_recurrent): llama_memory_recurrent only, no KV cache.
    recurrent("mamba", R::Mamba1),
    recurrent("mamba2", R::Mamba2),
    recurrent("rwkv6", R::Rwkv),
    recurrent("rwkv6qwen2", R::Rwkv),
    recurrent("rwkv7", R::Rwkv),
    recurrent("arwkv7", R::Rwkv),
};

} // namespace

const ArchitectureRules* findArchitectureRules(std::string_view architecture) {
    for (const auto& rules : kRules) {
        if (rules.name == architecture) {
            return &rules;
        }
    }
    return nullptr;
}

const std::vector<std::string_view>& knownArchitectureNames() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> out;
        out.reserve(kRules.size());
        for (const auto& rules : kRules) {
            out.push_back(rules.name);
        }
        return out;
    }();
    return names;
}

} // namespace llamafit

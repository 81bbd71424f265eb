#pragma once
// ArchitectureRules: the per-architecture choices llama.cpp makes in load_arch_hparams
// (src/models/<arch>.cpp) and create_memory (src/llama-model.cpp) that decide, per layer,
// whether it attends (full, sliding window, chunked), holds KV in the main cache, or holds
// recurrent state. Internal to core/model: read by the model interpreter only.
// Counts are layers and tokens; no byte sizes here.

#include "core/model/modelinfo.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace llamafit {

// How the layers split between attention and recurrent state (llama.cpp create_memory filters).
enum class LayerMixRule {
    Transformer,       // every layer attends (layers with head_count_kv 0 have nothing to cache)
    PureRecurrent,     // llm_arch_is_recurrent: every trunk layer holds RS, there is no KV cache
    AttentionInterval, // attention.recurrent_layers array, else (l+1) % full_attention_interval != 0
    ZeroKvHeads,       // recurrent iff head_count_kv(l) == 0 (Jamba, Granite-H, LFM2, PLaMo2, Kimi-Linear)
    NemotronH,         // kv==0 && ff==0: recurrent; kv>0 && ff==0: attention; ff>0: MLP only
    EveryLayerBoth,    // Falcon-H1: every layer has both KV and RS
};

// Where the sliding-window layer set comes from.
enum class SwaRule {
    None,
    Period,          // scalar sliding_window_pattern P (an array is ignored, as get_key_or_arr(uint32) does)
    PeriodOrArray,   // scalar P if the key is scalar, else the per-layer array
    LayerArray,      // per-layer array (a scalar fills every layer with its truth value)
    AttentionLayers, // LFM2: every attention layer is SWA when sliding_window > 0
};

// When the SWA rule applies at all.
enum class SwaActivation {
    Always,            // the architecture always has SWA layers
    WindowKeyPositive, // only when <arch>.attention.sliding_window is present and > 0 (Gemma-3, OLMo2, ...)
    UnlessWindowZero,  // Llama-4: chunked unless the key is present and 0; the key's value is then ignored
    SixtyFourLayers,   // EXAONE-4: only the 64-layer (32B) model interleaves SWA
};

// Which formula gives n_embd_r / n_embd_s (llama.cpp src/llama-hparams.cpp), and which keys it needs.
enum class RecurrentState {
    None,
    Mamba1,          // ssm.conv_kernel/inner_size/state_size; group_count is not read (0)
    Mamba2,          // the same plus ssm.group_count (also gated delta net: Qwen3-Next / Qwen3.5)
    Rwkv,            // wkv.head_size, token_shift_count (default 2)
    ShortConv,       // shortconv.l_cache (LFM2)
    Kda,             // ssm.conv_kernel + kda.head_dim (Kimi-Linear)
    LinearAttention, // MiniMax-01: state head_dim^2 * n_head, head_dim = key_length
};

struct ArchitectureRules {
    std::string_view name; // general.architecture spelling
    LayerMixRule mix = LayerMixRule::Transformer;
    std::uint32_t defaultAttentionInterval = 0; // AttentionInterval only
    RecurrentState state = RecurrentState::None;

    SwaRule swa = SwaRule::None;
    SwaActivation swaActivation = SwaActivation::Always;
    AttentionKind swaKind = AttentionKind::SlidingWindow;
    std::uint32_t defaultSwaPeriod = 0;     // Period / PeriodOrArray when the key is absent
    bool swaDenseFirst = false;             // SWA iff l % P != 0 instead of l % P < P-1
    std::uint32_t defaultSlidingWindow = 0; // 0: the sliding_window key is required when SWA applies
    bool swaPatternCoversNextn = false;     // the pattern was set before NextN layers were split off

    bool readsNextn = false;    // reads <arch>.nextn_predict_layers (NextN blocks never join the main cache)
    bool readsMla = false;      // reads key_length_mla / value_length_mla (is_mla())
    int kvLayersFromStart = -1; // Gemma-3n: only the first N layers own KV (-1: all)
    bool sharedKvLayersKey = false; // Gemma-4: n_layer - attention.shared_kv_layers own KV
};

// nullptr for an architecture without dedicated rules.
const ArchitectureRules* findArchitectureRules(std::string_view architecture);

const std::vector<std::string_view>& knownArchitectureNames();

} // namespace llamafit

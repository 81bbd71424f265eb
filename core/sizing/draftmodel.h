#pragma once
// A draft model (-md / --spec-draft-model) as llama-server 0.7.0 (b11669) loads it: a second
// model with its own weights and its own llama_context, whatever --spec-type says (measured:
// `-md` without --spec-type still loads the draft and creates its context). Pure data and
// functions, any thread; sized by estimateMemory() (estimator.cpp) as a second estimate whose
// buffers carry owner DraftModel.
//
// The draft context's parameters, measured on the real server (CPU backend) and read in
// common/speculative.cpp (common_speculative_init_result) and tools/server/server-context.cpp:
// - n_ctx, n_seq_max, kv_unified and n_batch are the main context's (0.7.0 has no -cd);
// - n_ubatch is --spec-draft-n-ubatch when given, else the main -ub;
// - -fa is the main -fa; one logits row per sequence (the draft verifies nothing);
// - its K/V types are -ctkd / -ctvd, f16 by default: the main -ctk/-ctv do not carry over;
// - its layers go to the GPUs by -ngld (llama.cpp's default: every layer), on the main model's
//   devices (-devd is not modelled).

#include "core/gguf/ggmltype.h"
#include "core/sizing/gpulayers.h"

#include <optional>
#include <string>

namespace llamafit {

struct ServerSettings;

struct DraftModelSettings {
    std::string path;                    // -md; empty = no draft model
    std::optional<GpuLayers> gpuLayers;  // -ngld; nullopt = not passed (every layer on the GPUs)
    GgmlType cacheTypeK = GgmlType::F16; // -ctkd
    GgmlType cacheTypeV = GgmlType::F16; // -ctvd
    bool operator==(const DraftModelSettings&) const = default;
};

// Whether the settings load a draft model (-md given).
bool loadsDraftModel(const ServerSettings& settings);

// The settings the draft model's context is sized with: the main settings' context, slots,
// batch and flash attention, the draft's own K/V types, micro-batch and GPU layers, and nothing
// the draft context does not build (speculation, adapters, a draft of its own).
ServerSettings draftContextSettings(const ServerSettings& main);

} // namespace llamafit

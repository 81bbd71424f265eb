#pragma once
// Refusals mapped onto the settings panel's controls: which of its controls an estimator error
// is about, read from the error's subject (Error::settings), never from its message. Which cache
// types would be refused is the core's (core/sizing/settingsvalidity.h). Used by SettingsPanel
// and its tests. Pure: no widgets; any thread.

#include "core/common/result.h"
#include "core/common/setting.h"

#include <optional>
#include <vector>

namespace llamafit {

enum class SettingsControl {
    Context,
    Slots,
    CacheTypeK,
    CacheTypeV,
    GpuLayers,
    Batch,
    Ubatch,
    FlashAttention,
    KvUnified,
    SwaFull,
    LoadMode,
    ExtraFlags,
};

// The panel's own control for a setting, or nullopt for a setting only the extra-flags field
// sets (-ts, -ot, ...).
std::optional<SettingsControl> controlFor(Setting setting);

// The controls an estimateMemory()/validateSettings() error is about, in its subject's order,
// without repeats; ExtraFlags when a setting has no control of its own or the error names none.
std::vector<SettingsControl> offendingControls(const Error& error);

} // namespace llamafit

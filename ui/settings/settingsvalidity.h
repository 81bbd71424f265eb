#pragma once
// Why llama-server would refuse the planned settings, in the terms the settings panel shows:
// which of its controls an estimator error belongs to (so the panel marks that control), and,
// for each K or V cache type, the reason llama-server would refuse it for this model with the
// other settings as they are (so the type combos mark those items while keeping them
// selectable). Both read the error codes of core/sizing/estimator.h. Used by SettingsPanel and
// its tests. Pure: no widgets; any thread.

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/serversettings.h"

#include <optional>
#include <string>
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

// The controls an estimateMemory()/validateSettings() error names; ExtraFlags for a setting only
// the extra-flags field sets (-ts, -ot, ...).
std::vector<SettingsControl> offendingControls(const Error& error);

enum class CacheSide { K, V };

// llama.cpp's reason to refuse `type` as the K (or V) cache type with the other settings kept,
// or nullopt when it would accept it. A refusal that has nothing to do with this type (a bad
// -ot pattern, zero slots) is not reported here: it is not the type's fault.
std::optional<std::string> cacheTypeRefusal(const ModelInfo& model, const ServerSettings& settings,
                                            CacheSide side, GgmlType type);

} // namespace llamafit

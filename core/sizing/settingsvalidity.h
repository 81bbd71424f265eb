#pragma once
// Which K or V cache types llama-server would refuse for a model with the other settings as they
// are, and why: the settings panel marks those items of its type combos (keeping them
// selectable); the refusal is the estimator's own error (core/sizing/estimator.h), whose
// subject (Error::settings) names the settings it is about. Pure; any thread.

#include "core/common/result.h"
#include "core/gguf/ggmltype.h"
#include "core/model/modelinfo.h"
#include "core/sizing/serversettings.h"

#include <optional>

namespace llamafit {

enum class CacheSide { K, V };

// validateSettings()' error for `type` as the K (or V) cache type with the other settings kept,
// or nullopt when llama-server would accept it. A refusal that has nothing to do with this type
// (a bad -ot pattern, zero slots) is not reported here: it is not the type's fault.
std::optional<Error> cacheTypeRefusal(const ModelInfo& model, const ServerSettings& settings, CacheSide side,
                                      GgmlType type);

} // namespace llamafit

// The K/V cache types llama-server would refuse; see settingsvalidity.h.
#include "core/sizing/settingsvalidity.h"

#include "core/sizing/estimator.h"

namespace llamafit {

std::optional<Error> cacheTypeRefusal(const ModelInfo& model, const ServerSettings& settings, CacheSide side,
                                      GgmlType type) {
    // The other side is set to f16 (block size 1, never refused alone) unless the model is MLA,
    // where llama.cpp wants K == V and a mismatch is this type's fault too.
    ServerSettings trial = settings;
    (side == CacheSide::K ? trial.cacheTypeK : trial.cacheTypeV) = type;
    if (!model.mla) {
        (side == CacheSide::K ? trial.cacheTypeV : trial.cacheTypeK) = GgmlType::F16;
    }
    ServerSettings neutral = settings;
    neutral.cacheTypeK = GgmlType::F16;
    neutral.cacheTypeV = GgmlType::F16;
    const Result<bool> valid = validateSettings(model, trial);
    if (valid.ok() || !validateSettings(model, neutral).ok()) {
        return std::nullopt;
    }
    return valid.error();
}

} // namespace llamafit

// Refusals mapped onto the settings panel's controls; see settingsvalidity.h.
#include "ui/settings/settingsvalidity.h"

#include "core/sizing/estimator.h"

namespace llamafit {

std::vector<SettingsControl> offendingControls(const Error& error) {
    const std::string& code = error.code;
    const std::string& message = error.message;
    using enum SettingsControl;
    if (code == "settings.unsupported-cache-type") {
        return {message.starts_with("-ctk") ? CacheTypeK : CacheTypeV};
    }
    if (code == "settings.block-size-mismatch") {
        // validation.cpp words it "K cache type ..." / "V cache type ..."; the head-dim form is the
        // flash-attention one (llama.cpp src/llama-context.cpp checks it only with FA not off).
        std::vector<SettingsControl> controls{message.starts_with("K ") ? CacheTypeK : CacheTypeV};
        if (message.find("n_embd_head") != std::string::npos) {
            controls.push_back(FlashAttention);
        }
        return controls;
    }
    if (code == "settings.quantized-v-needs-fa") {
        return {CacheTypeV, FlashAttention};
    }
    if (code == "settings.mla-kv-types-differ") {
        return {CacheTypeK, CacheTypeV};
    }
    if (message.starts_with("-np") || message.starts_with("n_ctx_seq")) {
        return {Slots, Context};
    }
    if (message.starts_with("-b ")) {
        return {Batch, Ubatch};
    }
    if (message.starts_with("-c ") || message.starts_with("context of")) {
        return {Context};
    }
    return {ExtraFlags};
}

std::optional<std::string> cacheTypeRefusal(const ModelInfo& model, const ServerSettings& settings,
                                            CacheSide side, GgmlType type) {
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
    return valid.error().message;
}

} // namespace llamafit

// Refusals mapped onto the settings panel's controls; see settingsvalidity.h.
#include "ui/settings/settingsvalidity.h"

#include <algorithm>

namespace llamafit {

std::optional<SettingsControl> controlFor(Setting setting) {
    switch (setting) {
    case Setting::Context:
        return SettingsControl::Context;
    case Setting::Parallel:
        return SettingsControl::Slots;
    case Setting::CacheTypeK:
        return SettingsControl::CacheTypeK;
    case Setting::CacheTypeV:
        return SettingsControl::CacheTypeV;
    case Setting::GpuLayers:
        return SettingsControl::GpuLayers;
    case Setting::Batch:
        return SettingsControl::Batch;
    case Setting::Ubatch:
        return SettingsControl::Ubatch;
    case Setting::FlashAttention:
        return SettingsControl::FlashAttention;
    case Setting::KvUnified:
        return SettingsControl::KvUnified;
    case Setting::SwaFull:
        return SettingsControl::SwaFull;
    case Setting::LoadMode:
        return SettingsControl::LoadMode;
    case Setting::KvOffload:
    case Setting::TensorSplit:
    case Setting::TensorOverrides:
    case Setting::CpuMoe:
    case Setting::CpuMoeLayers:
    case Setting::Repack:
    case Setting::CacheRam:
    case Setting::ContextCheckpoints:
    case Setting::RpcServers:
    case Setting::SpeculativeType:
    case Setting::SpeculativeDraftMax:
    case Setting::SpeculativeDraftUbatch:
    case Setting::LoraAdapters:
    case Setting::DraftModel:
    case Setting::DraftGpuLayers:
    case Setting::DraftCacheTypeK:
    case Setting::DraftCacheTypeV:
    case Setting::Projector:
    case Setting::ProjectorOffload:
    case Setting::ImageMinTokens:
    case Setting::ImageMaxTokens:
        break;
    }
    return std::nullopt;
}

std::vector<SettingsControl> offendingControls(const Error& error) {
    std::vector<SettingsControl> controls;
    for (Setting setting : error.settings) {
        const SettingsControl control = controlFor(setting).value_or(SettingsControl::ExtraFlags);
        if (std::find(controls.begin(), controls.end(), control) == controls.end()) {
            controls.push_back(control);
        }
    }
    if (controls.empty()) {
        controls.push_back(SettingsControl::ExtraFlags);
    }
    return controls;
}

} // namespace llamafit

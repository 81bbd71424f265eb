#pragma once
// Setting: names one llama-server setting LlamaFit models (a field of ServerSettings,
// core/sizing/serversettings.h), as a value. It is the structured subject of an Error
// (which setting a refusal is about, so a front end can mark the right control without
// reading the message) and, in the flag vocabulary, what a llama-server flag sets.
// Lives in core/common because Error does; plain enum, no behaviour.

#include <string_view>

namespace llamafit {

enum class Setting {
    Context,                // -c
    Parallel,               // -np
    KvUnified,              // -kvu / -no-kvu
    CacheTypeK,             // -ctk
    CacheTypeV,             // -ctv
    FlashAttention,         // -fa
    Batch,                  // -b
    Ubatch,                 // -ub
    GpuLayers,              // -ngl
    SwaFull,                // --swa-full
    KvOffload,              // -nkvo
    TensorSplit,            // -ts
    TensorOverrides,        // -ot
    CpuMoe,                 // -cmoe
    CpuMoeLayers,           // -ncmoe
    LoadMode,               // -lm
    Repack,                 // -nr
    CacheRam,               // -cram
    ContextCheckpoints,     // -ctxcp
    RpcServers,             // --rpc
    SpeculativeType,        // --spec-type
    SpeculativeDraftMax,    // --spec-draft-n-max
    SpeculativeDraftUbatch, // --spec-draft-n-ubatch
    LoraAdapters,           // --lora / --lora-scaled
    DraftModel,             // -md
    DraftGpuLayers,         // -ngld
    DraftCacheTypeK,        // -ctkd
    DraftCacheTypeV,        // -ctvd
    Projector,              // -mm --mmproj
    ProjectorOffload,       // --mmproj-offload / --no-mmproj-offload
    ImageMinTokens,         // --image-min-tokens
    ImageMaxTokens,         // --image-max-tokens
};

// "context", "cache-type-k", ...: stable ids for JSON output and tests.
constexpr std::string_view settingId(Setting setting) {
    switch (setting) {
    case Setting::Context:
        return "context";
    case Setting::Parallel:
        return "parallel";
    case Setting::KvUnified:
        return "kv-unified";
    case Setting::CacheTypeK:
        return "cache-type-k";
    case Setting::CacheTypeV:
        return "cache-type-v";
    case Setting::FlashAttention:
        return "flash-attn";
    case Setting::Batch:
        return "batch-size";
    case Setting::Ubatch:
        return "ubatch-size";
    case Setting::GpuLayers:
        return "gpu-layers";
    case Setting::SwaFull:
        return "swa-full";
    case Setting::KvOffload:
        return "kv-offload";
    case Setting::TensorSplit:
        return "tensor-split";
    case Setting::TensorOverrides:
        return "override-tensor";
    case Setting::CpuMoe:
        return "cpu-moe";
    case Setting::CpuMoeLayers:
        return "n-cpu-moe";
    case Setting::LoadMode:
        return "load-mode";
    case Setting::Repack:
        return "repack";
    case Setting::CacheRam:
        return "cache-ram";
    case Setting::ContextCheckpoints:
        return "ctx-checkpoints";
    case Setting::RpcServers:
        return "rpc";
    case Setting::SpeculativeType:
        return "spec-type";
    case Setting::SpeculativeDraftMax:
        return "spec-draft-n-max";
    case Setting::SpeculativeDraftUbatch:
        return "spec-draft-n-ubatch";
    case Setting::LoraAdapters:
        return "lora";
    case Setting::DraftModel:
        return "model-draft";
    case Setting::DraftGpuLayers:
        return "gpu-layers-draft";
    case Setting::DraftCacheTypeK:
        return "cache-type-k-draft";
    case Setting::DraftCacheTypeV:
        return "cache-type-v-draft";
    case Setting::Projector:
        return "mmproj";
    case Setting::ProjectorOffload:
        return "mmproj-offload";
    case Setting::ImageMinTokens:
        return "image-min-tokens";
    case Setting::ImageMaxTokens:
        return "image-max-tokens";
    }
    return "";
}

} // namespace llamafit

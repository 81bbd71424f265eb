// llama-kv-cache.cpp: attn_rot_k when K is quantized and the head size is a multiple of 64, with
// an nrot x nrot f32 matrix, nrot the largest power of two dividing the head size; attn_rot_v
// likewise for V with nrot 64. Measured on the 0.7.0 CPU backend: +64 KiB with a q8_0 K at head
// size 128, +256 KiB per cache at 256 (gemma3, both caches), +16 KiB for a q8_0 V, nothing at
// head size 96 or for MLA.
#include "core/sizing/kvrotation.h"

namespace llamafit {
namespace {

std::uint32_t commonHeadDim(const ModelInfo& model, bool swaCache, bool value) {
    std::uint32_t common = 0;
    for (const auto& layer : model.layers) {
        const bool swa =
            layer.attention == AttentionKind::SlidingWindow || layer.attention == AttentionKind::Chunked;
        if (!layer.hasKv || swa != swaCache) {
            continue;
        }
        const std::uint32_t dim = value ? layer.valueHeadDim : layer.keyHeadDim;
        if (common != 0 && common != dim) {
            return 0;
        }
        common = dim;
    }
    return common;
}

} // namespace

KvRotationShape kvRotationShape(const ModelInfo& model, bool swaCache) {
    if (model.mla) {
        return {};
    }
    return {commonHeadDim(model, swaCache, false), commonHeadDim(model, swaCache, true)};
}

std::uint32_t keyRotationSize(std::uint32_t keyHeadDim, GgmlType cacheTypeK) {
    if (!ggmlTypeTraits(cacheTypeK).quantized || keyHeadDim == 0 || keyHeadDim % 64 != 0) {
        return 0;
    }
    std::uint32_t rotation = 64;
    while (keyHeadDim % (rotation * 2) == 0) {
        rotation *= 2;
    }
    return rotation;
}

std::uint32_t valueRotationSize(std::uint32_t valueHeadDim, GgmlType cacheTypeV) {
    return ggmlTypeTraits(cacheTypeV).quantized && valueHeadDim > 0 && valueHeadDim % 64 == 0 ? 64 : 0;
}

std::uint64_t kvRotationBytes(const KvRotationShape& shape, const ServerSettings& settings) {
    const std::uint64_t keys = keyRotationSize(shape.keyHeadDim, settings.cacheTypeK);
    const std::uint64_t values = valueRotationSize(shape.valueHeadDim, settings.cacheTypeV);
    return (keys * keys + values * values) * 4;
}

KvRotations kvRotations(const KvRotationShape& shape, const ServerSettings& settings) {
    ServerSettings keysOnly = settings;
    keysOnly.cacheTypeV = GgmlType::F16;
    const std::uint64_t keys = kvRotationBytes(shape, keysOnly);
    const std::uint64_t bytes = kvRotationBytes(shape, settings);
    return {bytes, keys > 0, bytes > keys};
}

} // namespace llamafit

// The speed of a K/V pair; see kvpairspeed.h.
#include "core/machine/kvpairspeed.h"

#include "core/sizing/estimator.h"

namespace llamafit {

std::optional<SpeedPrediction> speedWithKvPair(const ModelInfo& model, ServerSettings settings,
                                               GgmlType typeK, GgmlType typeV, std::uint32_t contextTokens,
                                               const std::vector<GpuDevice>& gpus,
                                               std::uint64_t bandwidthBytesPerSecond,
                                               std::optional<double> fp16Tflops,
                                               const SpeedEfficiency& efficiency) {
    if (contextTokens == 0 || bandwidthBytesPerSecond == 0) {
        return std::nullopt;
    }
    settings.cacheTypeK = typeK;
    settings.cacheTypeV = typeV;
    settings.contextTokens = contextTokens;
    const Result<MemoryEstimate> estimate = estimateMemory(model, settings, gpus);
    if (!estimate) {
        return std::nullopt;
    }
    return predictSpeed(
        speedInputs(model, *estimate, bandwidthBytesPerSecond, fp16Tflops, settings.ubatchTokens),
        efficiency);
}

} // namespace llamafit

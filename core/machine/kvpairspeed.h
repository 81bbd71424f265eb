#pragma once
// The expected decode speed of a K/V cache type choice (issue 15 item 4, seed 003's question
// "is q4_0 worth it?"): the estimate with that pair at a context, and the speed model
// (speedmodel.h) at a full slot of it -- a smaller cache reads fewer bytes per token. Used by
// `llamafit-cli fit` next to the best-K/V-pair and largest-context answers. Pure.

#include "core/machine/speedmodel.h"
#include "core/sizing/serversettings.h"

#include <optional>
#include <vector>

namespace llamafit {

// nullopt when llama-server would refuse the pair or the context is 0.
std::optional<SpeedPrediction> speedWithKvPair(const ModelInfo& model, ServerSettings settings,
                                               GgmlType typeK, GgmlType typeV, std::uint32_t contextTokens,
                                               const std::vector<GpuDevice>& gpus,
                                               std::uint64_t bandwidthBytesPerSecond,
                                               std::optional<double> fp16Tflops,
                                               const SpeedEfficiency& efficiency);

} // namespace llamafit

#pragma once
// The speed model: what llama-server should decode and prefill at, next to the bandwidth bound
// of bandwidth.h.
//   decode bound     = bandwidth / bytes read per token (active weights: for MoE the routed
//                      experts and the shared part; KV of the filled cells; one slot's RS)
//   decode expected  = bound x decode efficiency (per backend and dense/MoE, speedefficiency.h)
//   prompt expected  = a roofline per micro-batch of B tokens: the slower of the FP16 work
//                      (2 x active parameters per token, x prompt efficiency) and reading the
//                      weights the batch touches (a dense model all of them; a MoE at most
//                      B x the active bytes) at the decode efficiency
// Several slots decoding at once share the bandwidth: one step reads the weights once and
// every slot's KV and RS, and each slot gets one token of it.
// Used by `llamafit-cli plan/estimate/bench`, the GUI's advice panel, chart tooltip and
// benchmark dialog, and the K/V-type solver. Pure; rates in tokens per second, sizes in bytes.

#include "core/machine/bandwidth.h"
#include "core/machine/memorypools.h"
#include "core/machine/speedefficiency.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llamafit {

struct SpeedInputs {
    std::uint64_t bandwidthBytesPerSecond = 0;
    std::optional<double> fp16Tflops;      // the device's FP16 peak; nullopt = no prompt estimate
    std::uint64_t weightBytesPerToken = 0; // active weights read per decoded token
    std::uint64_t weightBytesTotal = 0;    // all weights (what a large prompt batch may touch)
    std::uint64_t kvBytesPerToken = 0;     // one slot's KV read at the current depth
    std::uint64_t rsBytesPerToken = 0;     // one slot's recurrent state
    std::uint64_t activeParameters = 0;    // for the prompt's 2 FLOPs per parameter and token
    std::uint32_t ubatchTokens = 512;      // -ub: tokens per prompt micro-batch
    std::uint32_t decodingSlots = 1;       // slots generating at the same time
    bool operator==(const SpeedInputs&) const = default;
};

struct SpeedPrediction {
    std::uint64_t bytesPerStep = 0; // one decode step: weights once + every decoding slot's KV and RS
    double decodeTpsBound = 0;      // per slot
    double decodeTpsExpected = 0;   // per slot
    double decodeTpsAllSlots = 0;   // expected, summed over the decoding slots
    std::optional<double> promptTpsExpected;
    SpeedEfficiency efficiency;
    bool operator==(const SpeedPrediction&) const = default;
};

SpeedPrediction predictSpeed(const SpeedInputs& inputs, const SpeedEfficiency& efficiency);

// The inputs for a model and its estimate at `filledTokens` (default: a full slot, as
// estimateDecodeSpeed).
SpeedInputs speedInputs(const ModelInfo& model, const MemoryEstimate& estimate,
                        std::uint64_t bandwidthBytesPerSecond, std::optional<double> fp16Tflops,
                        std::uint32_t ubatchTokens, std::optional<std::uint32_t> filledTokens = std::nullopt);

// The backend that decodes on `machine`: its first GPU's, else the CPU. (A partial -ngl offload
// decodes on both; the model takes the GPU's figure for it.)
Backend speedBackend(const Machine& machine);

// The prediction for a model and its estimate on a machine: nullopt when the machine has no
// bandwidth figure. `decodingSlots` slots generate at once (1: one request at a time).
std::optional<SpeedPrediction> predictMachineSpeed(const ModelInfo& model, const MemoryEstimate& estimate,
                                                   const Machine& machine, const ServerSettings& settings,
                                                   const SpeedEfficiency& efficiency,
                                                   std::optional<std::uint32_t> filledTokens = std::nullopt,
                                                   std::uint32_t decodingSlots = 1);

// One line for people: "≤ 98.1 t/s bound · ~54.0 t/s expected (public defaults for Vulkan, MoE ...)".
std::string describeSpeed(const SpeedPrediction& prediction);

} // namespace llamafit

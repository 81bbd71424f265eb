// The speed model; see speedmodel.h.
#include "core/machine/speedmodel.h"

#include <algorithm>
#include <cstdio>

namespace llamafit {

namespace {

// llama.cpp's matmuls do 2 FLOPs (multiply, add) per weight and token.
constexpr double kFlopsPerParameter = 2.0;

std::optional<double> promptTokensPerSecond(const SpeedInputs& inputs, const SpeedEfficiency& efficiency) {
    if (!inputs.fp16Tflops || *inputs.fp16Tflops <= 0 || inputs.activeParameters == 0 ||
        inputs.bandwidthBytesPerSecond == 0) {
        return std::nullopt;
    }
    const double batch = std::max<std::uint32_t>(1, inputs.ubatchTokens);
    const double computeSeconds = batch * kFlopsPerParameter * static_cast<double>(inputs.activeParameters) /
                                  (*inputs.fp16Tflops * 1e12 * efficiency.prompt);
    // A dense model reads all its weights per micro-batch; a MoE only the experts its tokens
    // were routed to, at most all of them.
    const double touched =
        std::min(static_cast<double>(std::max(inputs.weightBytesTotal, inputs.weightBytesPerToken)),
                 batch * static_cast<double>(inputs.weightBytesPerToken));
    const double readSeconds =
        touched / (static_cast<double>(inputs.bandwidthBytesPerSecond) * efficiency.decode);
    const double seconds = std::max(computeSeconds, readSeconds);
    return seconds > 0 ? std::optional<double>(batch / seconds) : std::nullopt;
}

} // namespace

SpeedPrediction predictSpeed(const SpeedInputs& inputs, const SpeedEfficiency& efficiency) {
    SpeedPrediction prediction;
    prediction.efficiency = efficiency;
    const std::uint32_t slots = std::max<std::uint32_t>(1, inputs.decodingSlots);
    prediction.bytesPerStep =
        inputs.weightBytesPerToken + slots * (inputs.kvBytesPerToken + inputs.rsBytesPerToken);
    prediction.decodeTpsBound =
        decodeTokensPerSecond(inputs.bandwidthBytesPerSecond, prediction.bytesPerStep);
    prediction.decodeTpsExpected = prediction.decodeTpsBound * efficiency.decode;
    prediction.decodeTpsAllSlots = prediction.decodeTpsExpected * slots;
    prediction.promptTpsExpected = promptTokensPerSecond(inputs, efficiency);
    return prediction;
}

SpeedInputs speedInputs(const ModelInfo& model, const MemoryEstimate& estimate,
                        std::uint64_t bandwidthBytesPerSecond, std::optional<double> fp16Tflops,
                        std::uint32_t ubatchTokens, std::optional<std::uint32_t> filledTokens) {
    const DecodeSpeedEstimate decode =
        estimateDecodeSpeed(model, estimate, bandwidthBytesPerSecond, filledTokens);
    SpeedInputs inputs;
    inputs.bandwidthBytesPerSecond = bandwidthBytesPerSecond;
    inputs.fp16Tflops = fp16Tflops;
    inputs.weightBytesPerToken = decode.weightBytesPerToken;
    inputs.weightBytesTotal = model.weightBytes();
    inputs.kvBytesPerToken = decode.kvBytesPerToken;
    inputs.rsBytesPerToken = decode.rsBytesPerToken;
    inputs.activeParameters = model.activeParameterCount();
    inputs.ubatchTokens = ubatchTokens;
    return inputs;
}

Backend speedBackend(const Machine& machine) {
    return machine.gpus.empty() ? Backend::Cpu : machine.gpus.front().backend;
}

std::optional<SpeedPrediction> predictMachineSpeed(const ModelInfo& model, const MemoryEstimate& estimate,
                                                   const Machine& machine, const ServerSettings& settings,
                                                   const SpeedEfficiency& efficiency,
                                                   std::optional<std::uint32_t> filledTokens,
                                                   std::uint32_t decodingSlots) {
    if (!machine.bandwidthBytesPerSecond) {
        return std::nullopt;
    }
    SpeedInputs inputs = speedInputs(model, estimate, *machine.bandwidthBytesPerSecond, machine.fp16Tflops,
                                     settings.ubatchTokens, filledTokens);
    inputs.decodingSlots = decodingSlots;
    return predictSpeed(inputs, efficiency);
}

std::string describeSpeed(const SpeedPrediction& prediction) {
    char text[160];
    std::snprintf(text, sizeof text, "≤ %.1f t/s bound · ~%.1f t/s expected", prediction.decodeTpsBound,
                  prediction.decodeTpsExpected);
    std::string line = text;
    if (prediction.promptTpsExpected) {
        std::snprintf(text, sizeof text, " · prompt ~%.0f t/s", *prediction.promptTpsExpected);
        line += text;
    }
    return line + " (" + prediction.efficiency.description + ")";
}

} // namespace llamafit

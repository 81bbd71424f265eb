// The live decode speed against the speed model; see livespeed.h.
#include "core/server/livespeed.h"

#include <algorithm>

namespace llamafit {

std::optional<MeasuredDecodeRate> measuredDecodeRate(const std::vector<SlotThroughput>& latestSlots,
                                                     const RunTotals& totals) {
    double sum = 0;
    std::uint32_t generating = 0;
    for (const SlotThroughput& slot : latestSlots) {
        // A restarted slot counts only its new request's tokens and a finished one reads 0
        // (throughput.h): both would pull the mean below what the kernels do.
        if (slot.tokensPerSecond > 0 && !slot.restarted && !slot.finished) {
            sum += slot.tokensPerSecond;
            ++generating;
        }
    }
    if (generating > 0) {
        return MeasuredDecodeRate{sum / generating, generating, MeasuredRateSource::Slots};
    }
    if (totals.generationTokensPerSecond && *totals.generationTokensPerSecond > 0) {
        // llama-server adds each request's own generation time, so this is a per-request rate
        // even when requests overlapped (tools/server/server-context.cpp t_token_generation).
        return MeasuredDecodeRate{*totals.generationTokensPerSecond, 1, MeasuredRateSource::RunAverage};
    }
    return std::nullopt;
}

std::uint32_t liveDepthTokens(const std::vector<SlotState>& slots, std::uint32_t slotContextTokens) {
    std::uint64_t processing = 0;
    std::uint64_t any = 0;
    for (const SlotState& slot : slots) {
        const std::uint64_t fill = static_cast<std::uint64_t>(slot.promptTokens) + slot.decodedTokens;
        any = std::max(any, fill);
        if (slot.isProcessing) {
            processing = std::max(processing, fill);
        }
    }
    const std::uint64_t fill = processing > 0 ? processing : any;
    if (fill == 0) {
        return slotContextTokens / 2;
    }
    return static_cast<std::uint32_t>(slotContextTokens > 0 ? std::min<std::uint64_t>(fill, slotContextTokens)
                                                            : fill);
}

LiveSpeed compareLiveSpeed(const MeasuredDecodeRate& measured, SpeedInputs inputs,
                           const SpeedEfficiency& efficiency) {
    inputs.decodingSlots = std::max<std::uint32_t>(1, measured.decodingSlots);
    const SpeedPrediction prediction = predictSpeed(inputs, efficiency);
    LiveSpeed speed;
    speed.measured = measured;
    speed.efficiency = efficiency;
    // One decode step reads the weights once and each decoding slot's KV and RS, and gives every
    // slot one token: the steps per second are the per-slot rate.
    speed.bytesPerToken = prediction.bytesPerStep;
    speed.effectiveBytesPerSecond = measured.tokensPerSecond * static_cast<double>(prediction.bytesPerStep);
    if (inputs.bandwidthBytesPerSecond > 0) {
        speed.machineBytesPerSecond = inputs.bandwidthBytesPerSecond;
        speed.fractionOfMachine =
            speed.effectiveBytesPerSecond / static_cast<double>(inputs.bandwidthBytesPerSecond);
        speed.expectedTokensPerSecond = prediction.decodeTpsExpected;
        if (prediction.decodeTpsExpected > 0) {
            speed.measuredOverExpected = measured.tokensPerSecond / prediction.decodeTpsExpected;
        }
    }
    return speed;
}

std::optional<LiveSpeed> liveSpeed(const ModelInfo& model, const MemoryEstimate& estimate,
                                   std::optional<std::uint64_t> machineBytesPerSecond,
                                   const SpeedEfficiency& efficiency, const std::vector<SlotState>& slots,
                                   const std::vector<SlotThroughput>& latestSlotRates,
                                   const RunTotals& totals) {
    const std::optional<MeasuredDecodeRate> measured = measuredDecodeRate(latestSlotRates, totals);
    if (!measured) {
        return std::nullopt;
    }
    const std::uint32_t depth = liveDepthTokens(slots, estimate.context.nCtxSeq);
    // No prompt figure here (no FP16 peak, the default micro-batch): only decode is compared.
    const SpeedInputs inputs =
        speedInputs(model, estimate, machineBytesPerSecond.value_or(0), std::nullopt, 512, depth);
    LiveSpeed speed = compareLiveSpeed(*measured, inputs, efficiency);
    speed.depthTokens = depth;
    return speed;
}

} // namespace llamafit

#pragma once
// The live decode speed against the speed model (issue 15 item 3): while llama-server runs, the
// measured decode rate next to the expected one, and the effective bandwidth it implies
// (tokens/s x bytes read per token) next to the machine's figure. Used by the GUI's live view
// (ui/live/liveview) and `llamafit-cli launch`'s status line and totals, so both show the same
// figures. Pure: the samples (ServerProbe's /slots and /metrics) and the speed model's inputs
// come in; rates in tokens per second per slot, bandwidth in bytes per second, depth in tokens.

#include "core/machine/speedmodel.h"
#include "core/server/slotsjson.h"
#include "core/server/throughput.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

enum class MeasuredRateSource {
    Slots,      // the generating slots' latest rates from /slots n_decoded (live)
    RunAverage, // the run's finished requests from /metrics (tokens_predicted_total / _seconds_total)
};

struct MeasuredDecodeRate {
    double tokensPerSecond = 0;      // per slot
    std::uint32_t decodingSlots = 1; // slots the rate was measured over (Slots), else 1
    MeasuredRateSource source = MeasuredRateSource::RunAverage;
    bool operator==(const MeasuredDecodeRate&) const = default;
};

// The rate to compare: the mean over the slots generating in the latest interval (not finished,
// not restarted: their rates are lower bounds), else the run's average from the counters, which
// also hold a burst shorter than one poll; nullopt before any token was generated.
std::optional<MeasuredDecodeRate> measuredDecodeRate(const std::vector<SlotThroughput>& latestSlots,
                                                     const RunTotals& totals);

// The depth the speed model reads KV at: the fullest processing slot's fill (prompt + decoded
// tokens), else the fullest slot's (an idle slot keeps its last prompt), else half the slot
// context (`slotContextTokens`), as the advice panel's "half" figure. Capped at the slot context.
std::uint32_t liveDepthTokens(const std::vector<SlotState>& slots, std::uint32_t slotContextTokens);

struct LiveSpeed {
    MeasuredDecodeRate measured;
    std::uint32_t depthTokens = 0;
    std::uint64_t bytesPerToken = 0;    // one decode step: active weights + the decoding slots' KV and RS
    double effectiveBytesPerSecond = 0; // measured steps/s x bytesPerToken
    std::optional<std::uint64_t> machineBytesPerSecond; // nullopt: the machine has no figure
    std::optional<double> fractionOfMachine;            // effective / machine
    std::optional<double> expectedTokensPerSecond;      // the speed model's, per slot
    std::optional<double> measuredOverExpected;
    SpeedEfficiency efficiency; // what the expected rate used (its description names the source)
    bool operator==(const LiveSpeed&) const = default;
};

// The comparison for one measured rate. `inputs` are the speed model's for the launched model
// and estimate at the current depth (speedInputs); its bandwidthBytesPerSecond 0 means the
// machine has no figure, and then only the effective bandwidth is known. Its decodingSlots is
// replaced by the measured rate's.
LiveSpeed compareLiveSpeed(const MeasuredDecodeRate& measured, SpeedInputs inputs,
                           const SpeedEfficiency& efficiency);

// What both front ends call: the launched model and estimate, the machine's bandwidth (nullopt:
// none), the efficiency, and the probe's latest samples. nullopt before any token was generated.
std::optional<LiveSpeed> liveSpeed(const ModelInfo& model, const MemoryEstimate& estimate,
                                   std::optional<std::uint64_t> machineBytesPerSecond,
                                   const SpeedEfficiency& efficiency, const std::vector<SlotState>& slots,
                                   const std::vector<SlotThroughput>& latestSlotRates,
                                   const RunTotals& totals);

} // namespace llamafit

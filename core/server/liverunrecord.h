#pragma once
// LiveRunRecord: what one live llama-server run teaches the speed model (issue 15 item 2: the
// efficiency is "learned from the user's own benchmark runs and live runs"). While the run goes,
// each /metrics sample adds the tokens generated since the previous sample and the time
// llama-server spent generating them (llamacpp:tokens_predicted_total and _seconds_total, which
// only grow, so a burst between two samples counts too), and the time the speed model's
// bandwidth bound would have needed for them at that moment's depth and number of decoding slots
// (LiveSpeed). A run that generated at least kMinLearnedLiveTokens this way becomes one record:
// its decode average against its bound, one EfficiencySample. core/system/benchmarkstore keeps
// the records per machine next to the llama-bench runs. Pure; JSON in and out.
//
// Error code: bench.bad-record (the file is not a LlamaFit live-run file, or a field has the
// wrong type; the message names it).

#include "core/common/result.h"
#include "core/machine/speedefficiency.h"
#include "core/server/livespeed.h"
#include "core/server/throughput.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// Fewer tokens teach nothing reliable: a short run is mostly the first token's latency and the
// sampler's fixed cost, and a test's or a quick question's run would pull the median down.
inline constexpr std::uint64_t kMinLearnedLiveTokens = 1024;

struct LiveRunTally {
    std::uint64_t seenTokens = 0; // the counters at the previous sample
    double seenSeconds = 0;
    std::uint64_t generatedTokens = 0; // tallied with a bound since the run started
    double generationSeconds = 0;      // llama-server's generation time for them
    double boundSeconds = 0;           // what the bandwidth bound would have needed
    bool operator==(const LiveRunTally&) const = default;
};

// Adds what `totals` gained since the previous sample. `speed` is the comparison at this sample;
// without one, or without the machine's bandwidth figure, the tokens are seen but not tallied.
LiveRunTally tallyLiveRun(LiveRunTally tally, const RunTotals& totals, const std::optional<LiveSpeed>& speed);

struct LiveRunRecord {
    std::string machineId;
    std::string modelPath;
    std::uint64_t modelFileBytes = 0;
    Backend backend = Backend::Cpu; // the backend the speed model took for the run
    bool moe = false;
    std::string startedAt; // ISO 8601, UTC
    std::string endedAt;
    std::uint64_t generatedTokens = 0;
    double decodeTps = 0;         // generated tokens / llama-server's generation seconds (per slot)
    double boundTps = 0;          // generated tokens / the bound's seconds
    std::string efficiencySource; // the efficiency the live view compared with during the run
    bool operator==(const LiveRunRecord&) const = default;
};

// `run` (its identity: machine, model, backend, times, source) with the tally's figures; nullopt
// when the tally holds fewer than kMinLearnedLiveTokens tokens.
std::optional<LiveRunRecord> finishLiveRun(const LiveRunTally& tally, LiveRunRecord run);

// The file: {"format":"llamafit-live-runs","version":1,"runs":[...]}.
std::string liveRunsToJson(const std::vector<LiveRunRecord>& records);
Result<std::vector<LiveRunRecord>> liveRunsFromJson(std::string_view text);

// Each run as one decode sample (EfficiencySample::live).
std::vector<EfficiencySample> efficiencySamples(const std::vector<LiveRunRecord>& records);

} // namespace llamafit

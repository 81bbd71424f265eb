#pragma once
// How much of the bandwidth bound (decode) and of the FP16 peak (prompt processing) llama.cpp's
// kernels reach, per backend and per dense/MoE model: defaults from public measurements
// (docs/speed.md lists every row and its source; tests/unit/machine/speedmodel_test.cpp holds
// the defaults to them), or learned from the user's own llama-bench runs and long-enough live
// llama-server runs on this machine (core/system/benchmarkstore, core/server/liverunrecord.h). Used by the
// speed model (speedmodel.h), `llamafit-cli plan/estimate/bench` and the GUI. Pure; efficiencies are
// fractions (0..1].

#include "core/sizing/serversettings.h"

#include <cstddef>
#include <string>
#include <vector>

namespace llamafit {

enum class SpeedSource {
    PublicDefaults,        // the docs/speed.md defaults
    Benchmarks,            // learned from this machine's stored llama-bench results
    LiveRuns,              // learned from this machine's live llama-server runs
    BenchmarksAndLiveRuns, // learned from both
};

// "public-defaults", "benchmarks", "live-runs", "benchmarks+live-runs"
std::string_view speedSourceName(SpeedSource source);

struct SpeedEfficiency {
    double decode = 0.7; // measured decode t/s / bandwidth bound
    double prompt = 0.3; // measured prompt t/s / compute bound (FP16 peak)
    SpeedSource source = SpeedSource::PublicDefaults;
    std::size_t sampleCount = 0; // benchmark rows and live runs it was learned from (0 for the defaults)
    std::string description;     // "public defaults for Vulkan, MoE (docs/speed.md)"
    // What the description says, as data, for front ends that word it in another language.
    Backend backend = Backend::Vulkan; // the backend the figures are for
    bool moe = false;
    std::size_t benchmarkRows = 0; // learned from: this machine's llama-bench rows
    std::size_t liveRuns = 0;      // and live runs
    bool decodeIsDefault = true;   // learned sources may leave one of the two at the public default
    bool promptIsDefault = true;
    bool operator==(const SpeedEfficiency&) const = default;
};

// The defaults of docs/speed.md. Backends without public rows take the nearest one's figure
// (ROCm and Other as Vulkan, RPC as CPU) and say so in the description.
SpeedEfficiency defaultSpeedEfficiency(Backend backend, bool moe);

// One measured decode (or prompt) rate next to the bound the speed model gave for the same
// model, settings and depth: what learning needs from a stored benchmark row or live run.
struct EfficiencySample {
    Backend backend = Backend::Other;
    bool moe = false;
    bool prompt = false;    // a pp row (against the compute bound) rather than tg
    double measuredTps = 0; // llama-bench avg_ts, or a live run's decode average
    double boundTps = 0;    // the speed model's bound for that row or run
    bool live = false;      // from a live llama-server run, not a llama-bench row
    bool operator==(const EfficiencySample&) const = default;
};

// The median of measured/bound over the samples of this backend and dense/MoE kind (decode
// and prompt separately; benchmark rows and live runs alike, one vote each); a figure with no
// samples keeps its default. The source and description say which kinds it was learned from. Rows with a zero
// bound or rate are skipped. Ratios are capped to (0, 1.5] so one odd row cannot run away with it.
SpeedEfficiency learnSpeedEfficiency(Backend backend, bool moe, const std::vector<EfficiencySample>& samples);

} // namespace llamafit

#pragma once
// SweepSeries: the numbers behind the context sweep chart -- for each K/V type pair, the total
// memory of the constraining device (the first GPU when layers go there, else the host) at each
// context stop, and the largest context that fits, taken from largestContextPerKvPair() itself
// so the chart and the solver can never disagree. Pairs llama-server refuses for the model are
// kept with llama.cpp's reason and drawn as a note instead of a line.
// Used by SweepChart and its tests. Pure: no Qt, no I/O. Units: bytes, tokens.

#include "core/gguf/ggmltype.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizingmodel.h"
#include "core/sizing/solvers.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llamafit {

using KvPair = std::pair<GgmlType, GgmlType>; // K type, V type

struct SweepSeries {
    KvPair pair;
    bool refused = false;                   // llama-server refuses the pair for this model and settings
    std::string refusal;                    // llama.cpp's reason when refused
    std::vector<std::uint32_t> contexts;    // the stops, increasing
    std::vector<std::uint64_t> deviceBytes; // the constraining device's total at each stop
    ContextFit fit;                         // the solver's answer for the pair
    std::uint64_t fitDeviceBytes = 0;       // the device's total at fit.contextTokens (fit.fits only)
};

struct SweepData {
    std::string deviceName; // "Vulkan0", "CUDA0", or "CPU"
    bool onGpu = false;
    std::uint64_t budgetBytes = 0; // that device's budget; 0 = unconstrained
    std::vector<SweepSeries> series;
    std::vector<ContextFit> fits; // largestContextPerKvPair()'s vector, in pair order
};

// The context slider's stops (ui/contextstops.h: powers of two from 256 with quarter
// steps once a quarter is a multiple of 256, and the training context last); 0 = unknown (131072).
std::vector<std::uint32_t> sweepContexts(std::uint64_t trainingContext);

// f16/f16, q8_0/q8_0, f16/q8_0, q4_0/q4_0, then `current` when it is none of them.
std::vector<KvPair> sweepPairs(const KvPair& current);

// Whether the sweep charts the first GPU: the machine has one and the settings put layers there.
bool sweepOnGpu(const SizingModel& model, const ServerSettings& settings, const std::vector<GpuDevice>& gpus);

SweepData computeSweep(const SizingModel& model, const ServerSettings& settings,
                       const std::vector<GpuDevice>& gpus, const MemoryBudget& budget,
                       const std::vector<KvPair>& pairs);

} // namespace llamafit

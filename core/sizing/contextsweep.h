#pragma once
// The context sweep: for each K/V type pair, the total memory of the constraining device at each
// context stop -- when layers go to GPUs, the GPU with the least room left under its budget at
// the current settings (with RPC hosts or -ts that need not be the first), else the host -- read
// off the same SweepGrid `llamafit-cli sweep` prints (sweepgrid.h), and the largest context that
// fits, taken from largestContextPerKvPair() itself so the chart and the solver can never
// disagree. Pairs llama-server refuses for the model are kept with the estimator's error (drawn
// as a note instead of a line). Used by the GUI's SweepChart and its tests.
// Pure: no Qt, no I/O. Units: bytes, tokens.

#include "core/common/result.h"
#include "core/gguf/ggmltype.h"
#include "core/sizing/kvpairs.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizingmodel.h"
#include "core/sizing/solvers.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

struct SweepSeries {
    KvPair pair;
    bool refused = false;                   // llama-server refuses the pair for this model and settings
    Error refusal;                          // the estimator's error when refused
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

// The context slider's stops (contextstops.h: powers of two from 256 with quarter
// steps once a quarter is a multiple of 256, and the training context last); 0 = unknown (131072).
std::vector<std::uint32_t> sweepContexts(std::uint64_t trainingContext);

// Whether the sweep charts a GPU: the machine has one and the settings put layers there.
bool sweepOnGpu(const SizingModel& model, const ServerSettings& settings, const std::vector<GpuDevice>& gpus);

SweepData computeSweep(const SizingModel& model, const ServerSettings& settings,
                       const std::vector<GpuDevice>& gpus, const MemoryBudget& budget,
                       const std::vector<KvPair>& pairs);

} // namespace llamafit

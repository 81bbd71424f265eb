#pragma once
// Solvers over estimateMemory(): the largest context that fits a memory budget for each
// K/V type pair, the best-quality K/V pair for a target context, the most GPU layers
// that fit. "Does not fit" is a result (fits == false), not an error. Pure functions. Each
// takes the model as a ModelInfo (prepared once per call) or, for callers that keep one, as a
// SizingModel (sizingmodel.h); both give the same answers.

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/estimator.h"
#include "core/sizing/sizingmodel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

// How much memory may be used. A device with no budget entry is unconstrained.
struct MemoryBudget {
    std::uint64_t hostBytes = 0;         // 0 = unconstrained
    std::vector<std::uint64_t> gpuBytes; // one per GpuDevice, same order; 0 = unconstrained
    bool operator==(const MemoryBudget&) const = default;
};

// Every device within its budget, and llama-server does not abort (MemoryEstimate::serverAborts).
bool fitsBudget(const MemoryEstimate& estimate, const MemoryBudget& budget);

// The first device over its budget: the numbers behind "CPU needs 9000.00 MiB of 8192.00 MiB".
struct BudgetOverrun {
    std::string device; // "CPU", "CUDA0", ...
    std::uint64_t neededBytes = 0;
    std::uint64_t budgetBytes = 0;
    bool operator==(const BudgetOverrun&) const = default;
};

// The first device of `estimate` over its budget, or nullopt when every device fits.
std::optional<BudgetOverrun> firstOverrun(const MemoryEstimate& estimate, const MemoryBudget& budget);

// Why a solver found nothing (fits == false); the front ends word it.
enum class FitFailure {
    None,                 // it fits
    Refused,              // llama-server refuses the pair: ContextFit::refusal
    OverBudgetAtSmallest, // even -c 256 is over budget: ContextFit::overrun
    OverBudget,           // bestKvPairForContext: even the smallest pair (typeK/typeV) is over: overrun
    NoPairAccepted,       // bestKvPairForContext: llama-server refuses every pair for the model
};

struct ContextFit {
    GgmlType typeK = GgmlType::F16;
    GgmlType typeV = GgmlType::F16;
    bool fits = false;
    std::uint32_t contextTokens = 0; // largest -c (multiple of 256, <= training context) that fits
    std::uint64_t totalBytes = 0;    // estimate at that context
    FitFailure failure = FitFailure::None;
    Error refusal;         // FitFailure::Refused: the estimator's error
    BudgetOverrun overrun; // FitFailure::OverBudget*: the device over its budget
    bool operator==(const ContextFit&) const = default;
};

// Largest context per K/V pair (every pair of allowedCacheTypes() unless `pairs` is given).
std::vector<ContextFit> largestContextPerKvPair(const ModelInfo& model, const ServerSettings& settings,
                                                const std::vector<GpuDevice>& gpus,
                                                const MemoryBudget& budget,
                                                std::vector<std::pair<GgmlType, GgmlType>> pairs = {});
std::vector<ContextFit> largestContextPerKvPair(const SizingModel& model, const ServerSettings& settings,
                                                const std::vector<GpuDevice>& gpus,
                                                const MemoryBudget& budget,
                                                std::vector<std::pair<GgmlType, GgmlType>> pairs = {});

// The highest-quality K/V pair that fits `settings.contextTokens` (quality order:
// f32 > f16 = bf16 > q8_0 > q5_1 > q5_0 > q4_1 > iq4_nl > q4_0; K is kept at least as precise as V).
ContextFit bestKvPairForContext(const ModelInfo& model, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const MemoryBudget& budget);
ContextFit bestKvPairForContext(const SizingModel& model, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const MemoryBudget& budget);

struct GpuLayerFit {
    bool fits = false;
    int gpuLayers = 0; // -ngl value (output layer counted first)
    std::uint64_t totalBytes = 0;
    bool operator==(const GpuLayerFit&) const = default;
};

GpuLayerFit mostGpuLayers(const ModelInfo& model, const ServerSettings& settings,
                          const std::vector<GpuDevice>& gpus, const MemoryBudget& budget);
GpuLayerFit mostGpuLayers(const SizingModel& model, const ServerSettings& settings,
                          const std::vector<GpuDevice>& gpus, const MemoryBudget& budget);

} // namespace llamafit

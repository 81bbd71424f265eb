#pragma once
// The best -ts for a model over several devices (local GPUs and RPC servers): the layer split that
// lets the largest context fit every device's budget. llama.cpp's default splits the offloaded
// layers in proportion to the free memory each device reports (src/llama-model.cpp, "default
// split, by free memory"), blind to what else lands on a device -- the output layer, the compute
// buffer, which grows with the context on every device alike -- so one device can overflow while
// another has room. This solver searches layer counts per device instead and says what the default
// split reaches for comparison. Pure; calls only the estimator (through the SizingModel).
// Used by `llamafit-cli fit --best-split` and the GUI's cluster view.

#include "core/sizing/sizingmodel.h"
#include "core/sizing/solvers.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct SplitFit {
    bool fits = false;
    // The -ts values, in llama.cpp's device order: the layers (blocks and the output layer) each
    // device runs, which is also what llama.cpp assigns for these proportions.
    std::vector<double> tensorSplit;
    std::uint32_t contextTokens = 0; // the largest -c (multiple of 256) that fits with it
    std::uint64_t totalBytes = 0;    // the estimate at that context
    // The largest -c with llama.cpp's default split (no -ts); nullopt when even -c 256 does not fit.
    std::optional<std::uint32_t> defaultSplitContextTokens;
    bool operator==(const SplitFit&) const = default;
};

// `settings` as given (its -ngl, K/V types, slots...), its -ts and -c chosen here. Needs at least
// two devices; with fewer, or when no split fits even -c 256, fits == false.
SplitFit bestTensorSplit(const SizingModel& model, const ServerSettings& settings,
                         const std::vector<GpuDevice>& gpus, const MemoryBudget& budget);

} // namespace llamafit

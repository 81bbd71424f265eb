#pragma once
// The BIOS split advisor: for an APU, every carve-out size the BIOS offers, evaluated for the
// current model and settings -- does the GPU side fit the carve-out (or the shared window) with
// margin, what is left of system RAM after the OS, llama-server's host buffers and its run-time
// growth -- and the recommended split: the one that leaves the most system RAM while both sides
// fit with margin. Used by `llamafit-cli plan` and the GUI. Pure; bytes.
//
// Error codes: advisor.not-an-apu (the machine has no BIOS split), plus the estimator's
// settings.* codes.

#include "core/common/result.h"
#include "core/machine/memorypools.h"
#include "core/machine/poolusage.h"
#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct SplitEvaluation {
    std::uint64_t carveOutBytes = 0;
    std::uint64_t systemBytes = 0;         // physical - carve-out
    bool current = false;                  // the machine's present BIOS setting
    PoolLoad gpuSide;                      // the pool the GPU's buffers land in
    PoolLoad hostSide;                     // system RAM
    FitVerdict verdict = FitVerdict::Fits; // the worse of the two sides
    bool operator==(const SplitEvaluation&) const = default;
};

struct SplitAdvice {
    std::vector<SplitEvaluation> splits;    // ascending carve-out
    std::optional<std::size_t> recommended; // index into splits
    std::string reason;                     // one sentence for people
    MemoryEstimate estimate;                // the estimate at the current split
    bool operator==(const SplitAdvice&) const = default;
};

// `offeredCarveOutBytes` overrides the machine's list (typed in by the user); empty = the
// machine's own list, or just the current split when it has none.
Result<SplitAdvice> adviseBiosSplit(const ModelInfo& model, const ServerSettings& settings,
                                    const Machine& machine, const PlacementOptions& options = {},
                                    const std::vector<std::uint64_t>& offeredCarveOutBytes = {});

} // namespace llamafit

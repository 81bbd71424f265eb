#pragma once
// The BIOS split advisor: for an APU, every carve-out size the BIOS offers, evaluated for the
// current model and settings -- does the GPU side fit the carve-out (or the shared window) with
// margin, what is left of system RAM after the OS, llama-server's host buffers and its run-time
// growth -- and the recommended split: the one that leaves the most system RAM while both sides
// fit with margin. Used by `llamafit-cli plan` and the GUI. Pure; bytes.
//
// The advice is numbers and ids only: the front ends word it (the CLI in English,
// app/cli/advicetext.h; the GUI with tr(), MachinePanel), so each speaks its user's language.
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

// Why the next smaller offered split was not recommended.
enum class SmallerSplitProblem {
    None,             // no recommendation, or the recommended split is the smallest offered
    TooSmallForModel, // the GPU side does not fit at all
    TooTightOnGpu,    // the GPU side fits, but without the margin
};

struct SplitAdvice {
    std::vector<SplitEvaluation> splits;    // ascending carve-out
    std::optional<std::size_t> recommended; // index into splits; none when no split fits with margin
    SmallerSplitProblem smallerSplit = SmallerSplitProblem::None; // about splits[*recommended - 1]
    MemoryEstimate estimate;                                      // the estimate at the current split
    bool operator==(const SplitAdvice&) const = default;
};

// What the recommended split leaves free, clamped at 0: system RAM even when the prompt cache
// and checkpoints are full (hostSide.worstHeadroomBytes), and the GPU side (gpuSide.headroomBytes).
std::uint64_t freeSystemBytes(const SplitEvaluation& split);
std::uint64_t freeGpuBytes(const SplitEvaluation& split);

// `offeredCarveOutBytes` overrides the machine's list (typed in by the user); empty = the
// machine's own list, or just the current split when it has none.
Result<SplitAdvice> adviseBiosSplit(const ModelInfo& model, const ServerSettings& settings,
                                    const Machine& machine, const PlacementOptions& options = {},
                                    const std::vector<std::uint64_t>& offeredCarveOutBytes = {});

} // namespace llamafit

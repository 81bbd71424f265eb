#pragma once
// The question the product exists for, asked of a Hugging Face repo before anything is
// downloaded: which of its quants fits this machine, at what context, with which K/V cache, at
// what speed. Each quant is sized from its own GGUF header (read by Range, never its tensor
// data) by the same estimate as a local file, so a quant's row equals the estimate of the file
// once it is downloaded, to the byte.
//
// Per quant: the largest context per K/V pair within the machine's budget (machineBudget:
// every pool less the margin), the verdict of placing it at the context asked for
// (placeOnMachine), and the expected decode speed there (predictMachineSpeed). The recommended
// quant is the best quality (the Hub's order, quantlabel.h) whose verdict at that context is
// "fits". Unlike the size-against-free-memory badges of the Hub, LM Studio or llmfit, context,
// cache types, -ngl and the machine's real pools are all in it.
// Pure function.

#include "core/common/result.h"
#include "core/hub/repoquants.h"
#include "core/machine/memorypools.h"
#include "core/machine/poolusage.h"
#include "core/machine/speedefficiency.h"
#include "core/machine/speedmodel.h"
#include "core/model/companionmodels.h"
#include "core/model/modelinfo.h"
#include "core/sizing/estimator.h"
#include "core/sizing/kvpairs.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/solvers.h"

#include <functional>
#include <optional>
#include <vector>

namespace llamafit {

// A quant and, when its header was read and interpreted, the model; else why not.
struct QuantCandidate {
    RepoQuant quant;
    Result<ModelInfo> model = makeError("hub.not-read", "the header was not read");
    // The projector's header, when the quant has one and it was read: sized as --mmproj is.
    std::optional<ProjectorInfo> projector;
};

struct QuantFitRow {
    RepoQuant quant;
    std::optional<Error> error;             // the header could not be read or llama.cpp would refuse it
    std::uint32_t contextTokens = 0;        // the context the verdict is for (-c, else the training context)
    std::optional<MemoryEstimate> estimate; // at contextTokens
    FitVerdict verdict = FitVerdict::Unknown;
    std::vector<ContextFit> largestContext; // one per K/V pair asked for, in that order
    std::optional<SpeedPrediction> speed;   // at contextTokens, when the machine has a bandwidth
};

struct QuantFitTable {
    std::vector<QuantFitRow> rows;          // in the candidates' order (best quality first)
    std::optional<std::size_t> recommended; // index into rows
};

// `efficiency(moe)` gives the speed model's efficiency for a dense or MoE model on `machine`.
QuantFitTable quantFitTable(const std::vector<QuantCandidate>& candidates, const ServerSettings& settings,
                            const Machine& machine, const PlacementOptions& placement,
                            const std::vector<KvPair>& pairs,
                            const std::function<SpeedEfficiency(bool moe)>& efficiency);

} // namespace llamafit

#pragma once
// planModelSet(): several models, each with its own llama-server settings, on one machine's
// memory pools at once -- what llama-server's router (--models-preset, --models-max) or a
// llama-swap group keeps resident. Each model is estimated alone (estimateMemory, against the
// machine's GPUs as sizingGpus() gives them) and placed alone (placeOnMachine); a set of them is
// those placements stacked (stackPoolUsages: the machine's reservation once, every model's
// buffers and run-time growth on top) and judged by the same verdict rules as one model.
// Used by `llamafit-cli plan --set` / `export --set` and the GUI. Pure; bytes.
//
// Which sets fit: every non-empty subset is judged when the set has at most kMaxEnumeratedModels
// models (2^10 stacks of sums); for larger sets `subsets` is empty and the largest fitting set is
// the first safeModelsMax models.
//
// The safe --models-max is the largest k for which EVERY k models together fit ("fits", not
// "tight"): the router loads any k of them in any order. It is exact without enumeration: a
// pool's worst k models are the k with the most bytes there (after any with unbounded growth),
// so k is safe when, in every pool, those k fit. loadableModelsMax is the same rule on the
// members without their run-time growth.
//
// Each model is sized with its settings as given. llama-server's own -fit (on by default in
// 0.7.0) may shrink a later model's layers or context against the memory left when it loads;
// the plan does not: it says whether the settings as written fit together.
//
// Error codes: those of estimateMemory, the message prefixed with the model's name;
// modelset.bad-value (no models).

#include "core/common/result.h"
#include "core/machine/memorypools.h"
#include "core/machine/poolusage.h"
#include "core/model/companionmodels.h"
#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstddef>
#include <string>
#include <vector>

namespace llamafit {

inline constexpr std::size_t kMaxEnumeratedModels = 10;

struct SetMember {
    std::string name;
    ModelInfo model;
    ServerSettings settings;
    CompanionModels companions = {}; // the adapters and draft its flags load
};

struct PlannedMember {
    std::string name;
    MemoryEstimate estimate;
    PoolUsage usage; // this model alone on the machine
    bool operator==(const PlannedMember&) const = default;
};

struct SubsetFit {
    std::vector<std::size_t> members; // indexes into ModelSetPlan::members, ascending
    FitVerdict verdict = FitVerdict::Fits;
    bool operator==(const SubsetFit&) const = default;
};

struct ModelSetPlan {
    std::vector<PlannedMember> members; // in set order
    PoolUsage together;                 // every member at once
    std::vector<SubsetFit> subsets;     // by size, then in set order; empty above kMaxEnumeratedModels
    std::size_t safeModelsMax = 0;      // 0: not even every model alone fits
    // The same without run-time growth: every k models fit right after load, with the margin,
    // before any prompt cache or checkpoint grows. >= safeModelsMax; where it is larger, the
    // models' --cache-ram / --ctx-checkpoints growth is what limits the set.
    std::size_t loadableModelsMax = 0;
    std::vector<std::size_t> largestFittingSet; // most members that fit together (first such in set order)
    bool operator==(const ModelSetPlan&) const = default;
};

Result<ModelSetPlan> planModelSet(const std::vector<SetMember>& members, const Machine& machine,
                                  const PlacementOptions& options = {});

// The members of `plan` named by `indexes`, stacked on the machine.
PoolUsage stackMembers(const ModelSetPlan& plan, const std::vector<std::size_t>& indexes);

// The bytes one member adds to a pool: at load (its own buffers, no reservation) and its
// run-time growth bound on top.
struct MemberShare {
    std::uint64_t atLoadBytes = 0;
    std::uint64_t growthBytes = 0;
    bool unbounded = false;
    bool operator==(const MemberShare&) const = default;
};
MemberShare memberShare(const PlannedMember& member, std::size_t poolIndex);

} // namespace llamafit

// Several models on one machine's pools; see modelsetplan.h.
#include "core/modelset/modelsetplan.h"

#include "core/sizing/estimator.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace llamafit {

namespace {

// A pool's verdict leaves room for a set: fits, or not checked (size unknown, never guessed).
bool poolAllows(FitVerdict verdict) {
    return verdict == FitVerdict::Fits || verdict == FitVerdict::Unknown;
}

// What one member puts in one pool, for ordering members by it.
struct PoolShare {
    std::uint64_t bytes = 0; // at load plus run-time growth
    bool unbounded = false;
};

PoolShare poolShare(const PoolUsage& usage, std::size_t poolIndex) {
    const PoolLoad& load = usage.pools[poolIndex];
    return PoolShare{load.upToBytes - (load.atLoadBytes - load.llamaAtLoadBytes), load.unbounded};
}

// The k usages that load pool `poolIndex` most: any with unbounded growth there first, then by
// their bytes at load plus growth, largest first (ties in set order).
std::vector<const PoolUsage*> heaviest(const std::vector<PoolUsage>& usages, std::size_t poolIndex,
                                       std::size_t k) {
    std::vector<const PoolUsage*> order;
    for (const PoolUsage& usage : usages) {
        order.push_back(&usage);
    }
    std::stable_sort(order.begin(), order.end(), [poolIndex](const PoolUsage* a, const PoolUsage* b) {
        const PoolShare left = poolShare(*a, poolIndex);
        const PoolShare right = poolShare(*b, poolIndex);
        if (left.unbounded != right.unbounded) {
            return left.unbounded;
        }
        return left.bytes > right.bytes;
    });
    order.resize(k);
    return order;
}

// Whether every k of `usages` together fit: in each pool, its heaviest k do.
bool everySetOfSizeFits(const std::vector<PoolUsage>& usages, std::size_t k) {
    const std::size_t pools = usages.front().pools.size();
    for (std::size_t pool = 0; pool < pools; ++pool) {
        const PoolUsage worst = stackPoolUsages(heaviest(usages, pool, k));
        if (!poolAllows(worst.pools[pool].verdict)) {
            return false;
        }
    }
    return true;
}

// The largest k for which every k of `usages` fit. Every k-set fitting implies every smaller
// set fits (fewer bytes in every pool), so the first k that fails ends the search.
std::size_t largestSafeCount(const std::vector<PoolUsage>& usages) {
    std::size_t k = 0;
    while (k < usages.size() && everySetOfSizeFits(usages, k + 1)) {
        ++k;
    }
    return k;
}

// A usage as it is right after load: its run-time growth (prompt cache, checkpoints) left out.
PoolUsage withoutGrowth(PoolUsage usage) {
    for (PoolLoad& load : usage.pools) {
        std::erase_if(load.terms, [](const PoolTerm& term) { return term.upTo; });
    }
    return usage;
}

std::vector<SubsetFit> everySubset(const ModelSetPlan& plan) {
    const std::size_t count = plan.members.size();
    std::vector<SubsetFit> subsets;
    for (std::uint32_t mask = 1; mask < (1U << count); ++mask) {
        SubsetFit subset;
        for (std::size_t i = 0; i < count; ++i) {
            if ((mask & (1U << i)) != 0) {
                subset.members.push_back(i);
            }
        }
        subset.verdict = stackMembers(plan, subset.members).verdict;
        subsets.push_back(std::move(subset));
    }
    std::sort(subsets.begin(), subsets.end(), [](const SubsetFit& a, const SubsetFit& b) {
        return a.members.size() != b.members.size() ? a.members.size() < b.members.size()
                                                    : a.members < b.members;
    });
    return subsets;
}

} // namespace

MemberShare memberShare(const PlannedMember& member, std::size_t poolIndex) {
    if (poolIndex >= member.usage.pools.size()) {
        return {};
    }
    const PoolLoad& load = member.usage.pools[poolIndex];
    return MemberShare{load.llamaAtLoadBytes, load.upToBytes - load.atLoadBytes, load.unbounded};
}

PoolUsage stackMembers(const ModelSetPlan& plan, const std::vector<std::size_t>& indexes) {
    std::vector<const PoolUsage*> usages;
    for (const std::size_t index : indexes) {
        usages.push_back(&plan.members.at(index).usage);
    }
    return stackPoolUsages(usages);
}

Result<ModelSetPlan> planModelSet(const std::vector<SetMember>& members, const Machine& machine,
                                  const PlacementOptions& options) {
    if (members.empty()) {
        return makeError("modelset.bad-value", "a model set needs at least one model");
    }
    ModelSetPlan plan;
    for (const SetMember& member : members) {
        Result<MemoryEstimate> estimate =
            estimateMemory(member.model, member.settings, sizingGpus(machine), member.companions);
        if (!estimate) {
            Error error = estimate.error();
            error.message = "model '" + member.name + "': " + error.message;
            return error;
        }
        PoolUsage usage = placeOnMachine(*estimate, member.settings, member.model, machine, options);
        plan.members.push_back(PlannedMember{member.name, std::move(*estimate), std::move(usage)});
    }
    std::vector<std::size_t> all(members.size());
    std::iota(all.begin(), all.end(), 0);
    plan.together = stackMembers(plan, all);

    std::vector<PoolUsage> usages;
    std::vector<PoolUsage> atLoad;
    for (const PlannedMember& member : plan.members) {
        usages.push_back(member.usage);
        atLoad.push_back(withoutGrowth(member.usage));
    }
    plan.safeModelsMax = largestSafeCount(usages);
    plan.loadableModelsMax = largestSafeCount(atLoad);
    if (members.size() <= kMaxEnumeratedModels) {
        plan.subsets = everySubset(plan);
        for (const SubsetFit& subset : plan.subsets) {
            if (poolAllows(subset.verdict) && subset.members.size() > plan.largestFittingSet.size()) {
                plan.largestFittingSet = subset.members;
            }
        }
    } else {
        plan.largestFittingSet.resize(plan.safeModelsMax);
        std::iota(plan.largestFittingSet.begin(), plan.largestFittingSet.end(), 0);
    }
    return plan;
}

} // namespace llamafit

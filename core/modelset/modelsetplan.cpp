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

// The k members that load pool `poolIndex` most: any with unbounded growth there first, then by
// their bytes at load plus growth, largest first (ties in set order).
std::vector<std::size_t> heaviestMembers(const ModelSetPlan& plan, std::size_t poolIndex, std::size_t k) {
    std::vector<std::size_t> order(plan.members.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const MemberShare left = memberShare(plan.members[a], poolIndex);
        const MemberShare right = memberShare(plan.members[b], poolIndex);
        if (left.unbounded != right.unbounded) {
            return left.unbounded;
        }
        return left.atLoadBytes + left.growthBytes > right.atLoadBytes + right.growthBytes;
    });
    order.resize(k);
    std::sort(order.begin(), order.end());
    return order;
}

// Whether every k members together fit: in each pool, its heaviest k do.
bool everySetOfSizeFits(const ModelSetPlan& plan, std::size_t k) {
    for (std::size_t pool = 0; pool < plan.together.pools.size(); ++pool) {
        const PoolUsage worst = stackMembers(plan, heaviestMembers(plan, pool, k));
        if (!poolAllows(worst.pools[pool].verdict)) {
            return false;
        }
    }
    return true;
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
        Result<MemoryEstimate> estimate = estimateMemory(member.model, member.settings, sizingGpus(machine));
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

    // Every k-set fitting implies every smaller set fits (fewer bytes in every pool), so the
    // first k that fails ends the search.
    while (plan.safeModelsMax < members.size() && everySetOfSizeFits(plan, plan.safeModelsMax + 1)) {
        ++plan.safeModelsMax;
    }
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

// Text and JSON of `plan --set`; see modelsetoutput.h.
#include "app/cli/modelsetoutput.h"

#include "app/cli/commandline.h"
#include "app/cli/planoutput.h"
#include "app/cli/ruletext.h"
#include "app/cli/textoutput.h"
#include "app/cli/texttable.h"
#include "core/flags/serverargs.h"
#include "core/server/exports.h"

#include <ostream>

namespace llamafit {

namespace {

using Align = TextTable::Align;

std::string memberNames(const SetPlanResult& result, const std::vector<std::size_t>& indexes,
                        const char* separator) {
    std::string names;
    for (const std::size_t index : indexes) {
        names += (names.empty() ? "" : separator) + result.plan.members[index].name;
    }
    return names;
}

// "weights 4096.00, KV 512.00": the member's own buffers in this pool, by component.
std::string shareDetail(const PlannedMember& member, std::size_t poolIndex) {
    std::string detail;
    for (const PoolTerm& term : member.usage.pools[poolIndex].terms) {
        if (!term.reservation) {
            // The device's own buffers by component ("KV"); other terms by their label.
            const std::string label = term.component
                                          ? term.device + " " + std::string(componentName(*term.component))
                                          : poolTermLabel(term);
            detail += (detail.empty() ? "" : ", ") + label + " " +
                      (term.unbounded ? std::string("no limit") : formatMiB(term.bytes));
        }
    }
    return detail;
}

void printPool(std::ostream& out, const SetPlanResult& result, std::size_t poolIndex) {
    const PoolLoad& load = result.plan.together.pools[poolIndex];
    out << "  " << load.poolName << ": "
        << (load.capacityKnown ? formatMiB(load.capacityBytes) + " MiB" : std::string("size unknown"))
        << "\n";
    TextTable table({"", "at load MiB", "+ growth MiB", "what"},
                    {Align::Left, Align::Right, Align::Right, Align::Left});
    const std::uint64_t reserved = load.atLoadBytes - load.llamaAtLoadBytes;
    if (reserved > 0) {
        table.addRow({"reserved", formatMiB(reserved), "", "before llama-server (OS, desktop)"});
    }
    for (const PlannedMember& member : result.plan.members) {
        const MemberShare share = memberShare(member, poolIndex);
        if (share.atLoadBytes == 0 && share.growthBytes == 0 && !share.unbounded) {
            continue;
        }
        table.addRow(
            {member.name, formatMiB(share.atLoadBytes),
             share.unbounded ? "no limit" : (share.growthBytes > 0 ? formatMiB(share.growthBytes) : ""),
             shareDetail(member, poolIndex)});
    }
    table.addRow(
        {"= all together", formatMiB(load.atLoadBytes),
         load.unbounded
             ? "no limit"
             : (load.upToBytes > load.atLoadBytes ? formatMiB(load.upToBytes - load.atLoadBytes) : ""),
         ""});
    table.print(out, "    ");
    printPoolHeadroom(out, load);
}

// The largest sets that fit and the smallest that do not: what the full subset list comes to.
void printSubsets(std::ostream& out, const SetPlanResult& result) {
    const std::vector<SubsetFit>& subsets = result.plan.subsets;
    if (subsets.empty()) {
        out << "\nSubsets: not listed above " << kMaxEnumeratedModels
            << " models; every set of the safe size fits (below)\n";
        return;
    }
    auto fits = [](const SubsetFit& subset) { return subset.verdict == FitVerdict::Fits; };
    auto contains = [](const SubsetFit& outer, const SubsetFit& inner) {
        return std::includes(outer.members.begin(), outer.members.end(), inner.members.begin(),
                             inner.members.end());
    };
    std::vector<std::string> largest;
    std::vector<std::string> smallest;
    for (const SubsetFit& subset : subsets) {
        const bool maximal =
            fits(subset) && std::none_of(subsets.begin(), subsets.end(), [&](const SubsetFit& other) {
                return fits(other) && other.members.size() > subset.members.size() && contains(other, subset);
            });
        const bool minimal =
            !fits(subset) && std::none_of(subsets.begin(), subsets.end(), [&](const SubsetFit& other) {
                return !fits(other) && other.members.size() < subset.members.size() &&
                       contains(subset, other);
            });
        const std::string line = memberNames(result, subset.members, " + ") + " (" +
                                 std::string(fitVerdictName(subset.verdict)) + ")";
        if (maximal) {
            largest.push_back(line);
        } else if (minimal) {
            smallest.push_back(line);
        }
    }
    out << "\nSets that fit, largest (every smaller one within them fits too):\n";
    for (const std::string& line : largest) {
        out << "  " << line << "\n";
    }
    if (largest.empty()) {
        out << "  none: no model fits alone\n";
    }
    out << "Sets that are tight or do not fit, smallest (every larger one holding them is no better):\n";
    for (const std::string& line : smallest) {
        out << "  " << line << "\n";
    }
    if (smallest.empty()) {
        out << "  none: all models fit together\n";
    }
}

} // namespace

std::string setRouterCommand(const SetPlanResult& result) {
    const std::size_t modelsMax = std::max<std::size_t>(1, result.plan.safeModelsMax);
    return "llama-server --models-preset " + quotePosixArgument(result.setName + ".ini") + " --models-max " +
           std::to_string(modelsMax);
}

Json setPlanJson(const SetPlanResult& result) {
    Json json;
    json["set"] = {{"name", result.setName}, {"file", result.setFile}};
    json["machine"] = {{"id", result.machine.id},
                       {"name", result.machine.name},
                       {"os", osKindName(result.machine.os)},
                       {"apu", isApu(result.machine)},
                       {"chosen_because", result.chosenBecause}};
    json["margin_bytes"] = result.plan.together.marginBytes;
    Json models = Json::array();
    for (std::size_t i = 0; i < result.plan.members.size(); ++i) {
        const PlannedMember& member = result.plan.members[i];
        models.push_back({{"name", member.name},
                          {"model", modelJson(result.loaded[i].model)},
                          {"settings", {{"args", toServerArgs(result.loaded[i].args.settings)}}},
                          {"verdict_alone", fitVerdictName(member.usage.verdict)},
                          {"estimate_totals", componentBytesJson(member.estimate.totals)}});
    }
    json["models"] = std::move(models);
    json["verdict"] = fitVerdictName(result.plan.together.verdict);
    Json pools = Json::array();
    for (std::size_t p = 0; p < result.plan.together.pools.size(); ++p) {
        Json pool = poolLoadJson(result.plan.together.pools[p]);
        Json members = Json::array();
        for (const PlannedMember& member : result.plan.members) {
            const MemberShare share = memberShare(member, p);
            members.push_back({{"name", member.name},
                               {"at_load_bytes", share.atLoadBytes},
                               {"growth_bytes", share.growthBytes},
                               {"unbounded", share.unbounded}});
        }
        pool["members"] = std::move(members);
        pools.push_back(std::move(pool));
    }
    json["pools"] = std::move(pools);
    Json subsets = Json::array();
    for (const SubsetFit& subset : result.plan.subsets) {
        Json names = Json::array();
        for (const std::size_t index : subset.members) {
            names.push_back(result.plan.members[index].name);
        }
        subsets.push_back({{"members", std::move(names)}, {"verdict", fitVerdictName(subset.verdict)}});
    }
    json["subsets"] = std::move(subsets);
    Json largest = Json::array();
    for (const std::size_t index : result.plan.largestFittingSet) {
        largest.push_back(result.plan.members[index].name);
    }
    json["largest_fitting_set"] = std::move(largest);
    json["models_max_safe"] = result.plan.safeModelsMax;
    json["models_max_at_load"] = result.plan.loadableModelsMax;
    json["command"] = setRouterCommand(result);
    json["notes"] = result.plan.together.notes;
    return json;
}

void printSetPlanText(std::ostream& out, const SetPlanResult& result) {
    const ModelSetPlan& plan = result.plan;
    out << "Model set '" << result.setName << "' (" << plan.members.size() << " models) on "
        << result.machine.id << ": " << result.machine.name << "\n  chosen: " << result.chosenBecause
        << "\n  margin " << formatMiB(plan.together.marginBytes)
        << " MiB per pool (--margin-mib)\n\nModels\n";
    TextTable models({"name", "model", "alone", "flags"},
                     {Align::Left, Align::Left, Align::Left, Align::Left});
    for (std::size_t i = 0; i < plan.members.size(); ++i) {
        models.addRow({plan.members[i].name, modelLine(result.loaded[i].model),
                       std::string(fitVerdictName(plan.members[i].usage.verdict)),
                       joinArgs(toServerArgs(result.loaded[i].args.settings))});
    }
    models.print(out);
    out << "\nPools, each model's share stacked (MiB; growth: prompt cache, checkpoints at run time)\n";
    for (std::size_t p = 0; p < plan.together.pools.size(); ++p) {
        printPool(out, result, p);
    }
    out << "\nAll together: " << fitVerdictName(plan.together.verdict) << "\n";
    printSubsets(out, result);
    out << "\nSafe --models-max: " << plan.safeModelsMax;
    if (plan.safeModelsMax == 0) {
        out << " (not every model fits alone)";
    } else if (plan.safeModelsMax < plan.members.size()) {
        out << " (any " << plan.safeModelsMax << " of the " << plan.members.size()
            << " fit together; not every " << plan.safeModelsMax + 1 << ")";
    } else {
        out << " (all fit together)";
    }
    if (plan.loadableModelsMax > plan.safeModelsMax) {
        out << "\n  right after load any " << plan.loadableModelsMax
            << " fit: their run-time growth (prompt cache --cache-ram, checkpoints --ctx-checkpoints)"
               " is what limits the set; lower those to load more at once";
    }
    out << "\n  " << setRouterCommand(result)
        << "\n  the preset: llamafit-cli export --set FILE --format ini (or llama-swap)\n";
    for (const std::string& note : plan.together.notes) {
        out << "note: " << note << "\n";
    }
}

} // namespace llamafit

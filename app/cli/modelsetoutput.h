#pragma once
// The output of `llamafit-cli plan --set` (text and --json): the set's models, every pool of the
// machine with each model's share stacked on the reservation, which subsets fit, and the safe
// --models-max. JSON is a STABLE interface (fields only added; bytes as integers):
//   {set{name, file}, machine{id, name, os, apu, chosen_because}, margin_bytes,
//    models[{name, model{...as estimate --json}, settings.args, verdict_alone, estimate_totals{...}}],
//    verdict (all together), pools[{...as plan --json, for all together...,
//      members[{name, at_load_bytes, growth_bytes, unbounded}]}],
//    subsets[{members[names], verdict}] (every non-empty subset; [] above 10 models),
//    largest_fitting_set[names], models_max_safe, models_max_at_load (the same
//    without run-time growth), command (the router command line), notes[]}

#include "app/cli/jsonoutput.h"
#include "core/modelset/modelsetload.h"
#include "core/modelset/modelsetplan.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace llamafit {

struct SetPlanResult {
    std::string setName;
    std::string setFile;
    Machine machine;
    std::string chosenBecause;
    std::vector<LoadedSetMember> loaded; // per model, in set order
    ModelSetPlan plan;
};

// The router command line the plan recommends.
std::string setRouterCommand(const SetPlanResult& result);

Json setPlanJson(const SetPlanResult& result);
void printSetPlanText(std::ostream& out, const SetPlanResult& result);

} // namespace llamafit

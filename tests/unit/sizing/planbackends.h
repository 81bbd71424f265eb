#pragma once
// The engine's backend tables for a plan dump's backends, by the names the real scheduler gave
// them ("CPU", "Vulkan0" on lavapipe, "RPC0[...]"), with the device properties of the rig the dump
// came from (scripts/alloc-plan/record-plans.sh). Test support only.

#include "core/sizing/scheduler/schedulerbackend.h"
#include "tests/unit/sizing/plandump.h"

#include <string>
#include <vector>

namespace llamafit::test {

// Error code test.no-backend-table: a backend the engine has no table for yet.
Result<std::vector<scheduler::SchedulerBackend>> planBackends(const PlanDump& dump);

// The scheduler's copies in a plan folder's log.txt ("sched copies = 4" under pipeline
// parallelism), 1 where the recording kept no such line.
int planCopies(const std::string& folder);

} // namespace llamafit::test

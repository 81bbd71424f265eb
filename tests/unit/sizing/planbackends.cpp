// The backend tables for plan dumps; see planbackends.h.
#include "tests/unit/sizing/planbackends.h"

#include "core/sizing/scheduler/cpubackend.h"

#include <cstdint>

namespace llamafit::test {

Result<std::vector<scheduler::SchedulerBackend>> planBackends(const PlanDump& dump) {
    std::vector<scheduler::SchedulerBackend> backends;
    for (const DumpedBackend& dumped : dump.backends) {
        if (dumped.name == "CPU") {
            // ggml-cpu's buffer type aligns to TENSOR_ALIGNMENT (32).
            backends.push_back(scheduler::cpuBackend({dumped.bufferType, dumped.host, 32, UINT64_MAX / 2, {}}));
        } else {
            return makeError("test.no-backend-table", "no backend table for " + dumped.name);
        }
    }
    return backends;
}

} // namespace llamafit::test

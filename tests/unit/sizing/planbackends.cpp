// The backend tables for plan dumps; see planbackends.h.
#include "tests/unit/sizing/planbackends.h"

#include "core/sizing/scheduler/cpubackend.h"
#include "core/sizing/scheduler/vulkanbackend.h"

#include <cstdint>

namespace llamafit::test {

Result<std::vector<scheduler::SchedulerBackend>> planBackends(const PlanDump& dump) {
    // The Vulkan dumps come from lavapipe (record-plans.sh runs them on the GPU rig's llvmpipe);
    // the table takes its properties from vulkaninfo there, never from a dump.
    const scheduler::VulkanDevice lavapipe = scheduler::lavapipeDevice();
    std::vector<scheduler::SchedulerBackend> backends;
    for (const DumpedBackend& dumped : dump.backends) {
        if (dumped.name == "CPU" && dumped.bufferType == "Vulkan_Host") {
            // Beside a Vulkan GPU llama.cpp gives the CPU the first device's pinned host buffers.
            backends.push_back(scheduler::cpuBackend(scheduler::vulkanHostBufferType(lavapipe)));
        } else if (dumped.name == "CPU") {
            // ggml-cpu's buffer type aligns to TENSOR_ALIGNMENT (32).
            backends.push_back(
                scheduler::cpuBackend({dumped.bufferType, dumped.host, 32, UINT64_MAX / 2, {}}));
        } else if (dumped.name == lavapipe.name) {
            backends.push_back(scheduler::vulkanBackend(lavapipe));
        } else {
            return makeError("test.no-backend-table", "no backend table for " + dumped.name);
        }
    }
    return backends;
}

} // namespace llamafit::test

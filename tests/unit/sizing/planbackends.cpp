// The backend tables for plan dumps; see planbackends.h.
#include "tests/unit/sizing/planbackends.h"

#include "core/sizing/scheduler/cpubackend.h"
#include "core/sizing/scheduler/rpcbackend.h"
#include "core/sizing/scheduler/vulkanbackend.h"

#include <cstdint>
#include <fstream>
#include <regex>

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
        } else if (dumped.name.rfind("RPC", 0) == 0 && dumped.name.find('[') != std::string::npos) {
            // A ggml-rpc-server -d CPU on loopback: ggml-cpu's buffer type answers the client's
            // alignment and max-size queries (the table's defaults).
            backends.push_back(scheduler::rpcBackend({dumped.name}));
        } else {
            return makeError("test.no-backend-table", "no backend table for " + dumped.name);
        }
    }
    return backends;
}

int planCopies(const std::string& folder) {
    std::ifstream in(folder + "/log.txt");
    static const std::regex copiesLine(R"(sched copies = ([0-9]+))");
    for (std::string line; std::getline(in, line);) {
        std::smatch match;
        if (std::regex_search(line, match, copiesLine)) {
            return std::stoi(match[1]);
        }
    }
    return 1;
}

} // namespace llamafit::test

#pragma once
// The RPC matrix: small realistic shapes (tests/data/shapes) run by llama-server --rpc against
// two real ggml-rpc-server on loopback (tests/integration/rpcserver_test.cpp) and recorded
// (tests/data/recorded/rpc-b11669, scripts/record-rpc-runs.sh) for the check without a server
// (tests/unit/recorded/recordedrpcruns_test.cpp). Each case is named "<shape>_<settings>".
//
// Endpoints: a case's settings name the recorded endpoints 127.0.0.1:50052 and :50053; a live
// run starts its servers on free ports and swaps them in (withEndpoints), and its kept log is
// swapped back, so recordings of one build are identical. Free memory: what the run's own log
// lists for each device (`common_param:   - RPC0    : 127.0.0.1:P (24105 MiB, 24105 MiB free)`),
// the figure llama.cpp's default split used. Test support only.

#include "core/common/result.h"
#include "core/server/allocationlog.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "tests/support/integrationcases.h"
#include "tests/support/servercomparison.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit::test {

// The endpoints the cases and the recordings name.
const std::vector<std::string>& recordedRpcEndpoints();

struct RpcCase {
    IntegrationShape shape;
    std::string settingsName;
    ServerSettings settings; // rpcServers: some of recordedRpcEndpoints()
    bool withVulkan = false; // lavapipe visible too (Vulkan0, after the RPC devices)
    std::string name() const { return shape.name + "_" + settingsName; }
};

std::vector<RpcCase> rpcCases();

// `text` with each endpoint of `from` replaced by the one at the same index of `to`.
std::string withEndpoints(std::string text, const std::vector<std::string>& from,
                          const std::vector<std::string>& to);
ServerSettings withEndpoints(ServerSettings settings, const std::vector<std::string>& from,
                             const std::vector<std::string>& to);

// The devices the estimate gets for a run: the RPC servers of `settings` and, when the log lists
// it, Vulkan0, each with the free memory the log lists (AllocationLog::listedDevices), in
// llama.cpp's order.
// Error: test.device-not-logged (an --rpc server the log does not list).
Result<std::vector<GpuDevice>> devicesFromLog(const ServerSettings& settings, std::string_view log);

// One compute buffer, predicted and logged.
struct ComputeFigure {
    std::string bufferType;
    double predictedMiB = 0;
    double loggedMiB = 0;
    double ratio() const {
        return loggedMiB > 0 ? predictedMiB / loggedMiB : (predictedMiB > 0 ? 99.0 : 1.0);
    }
};

// The verdict on one RPC run: model, KV, RS and output buffers per buffer type (so per server),
// context values and cache shapes must equal the log, compute buffers within 5 %
// (compareWithServer's tolerances); the compute buffers are also listed as figures, and `run`
// feeds MatrixStatistics (the 2 % share).
struct RpcVerdict {
    bool passed = false;
    std::string failure;
    std::string summary;
    std::vector<ComputeFigure> compute;
    RunVerdict run;
};
RpcVerdict judgeRpcRun(const Result<MemoryEstimate>& estimate, const AllocationLog& log);

} // namespace llamafit::test

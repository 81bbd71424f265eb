#pragma once
// What each RPC host holds for a running llama-server, read from the main host's log: an
// ggml-rpc-server has no metrics endpoint, so the only record of a remote host's memory is the
// main host's start log -- the device list with the free memory each server reported
// ("common_param:   - RPC0    : 127.0.0.1:50052 (24105 MiB, 24105 MiB free)") and the buffer lines
// of its device ("RPC0[127.0.0.1:50052] model buffer size = ..."). Used by `llamafit-cli launch`
// and the GUI's cluster and live views. Pure; MiB as the log prints them.

#include "core/server/allocationlog.h"
#include "core/sizing/memoryestimate.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct RpcHostUsage {
    std::string endpoint;                        // "127.0.0.1:50052"
    std::string device;                          // llama.cpp's device name: "RPC0", "RPC1"; "" if not listed
    std::optional<std::uint64_t> freeAtStartMiB; // what the server reported free as llama-server started
    double allocatedMiB = 0;                     // its buffers: model, KV, RS, output, compute
    std::optional<double> predictedMiB;          // the estimate's buffers for it
    bool operator==(const RpcHostUsage&) const = default;
};

// One entry per RPC server the log lists or allocated on, in the log's device order.
std::vector<RpcHostUsage> rpcHostUsage(const AllocationLog& log,
                                       const std::optional<MemoryEstimate>& prediction = std::nullopt);

} // namespace llamafit

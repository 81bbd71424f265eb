// Per-RPC-host memory from the main host's log; see rpchostusage.h.
#include "core/server/rpchostusage.h"

#include "core/common/units.h"
#include "core/sizing/rpcdevices.h"

#include <algorithm>

namespace llamafit {

std::vector<RpcHostUsage> rpcHostUsage(const AllocationLog& log,
                                       const std::optional<MemoryEstimate>& prediction) {
    std::vector<RpcHostUsage> hosts;
    const auto hostOf = [&](const std::string& endpoint) -> RpcHostUsage& {
        auto it = std::find_if(hosts.begin(), hosts.end(),
                               [&](const RpcHostUsage& h) { return h.endpoint == endpoint; });
        if (it == hosts.end()) {
            hosts.push_back(RpcHostUsage{endpoint, "", std::nullopt, 0, std::nullopt});
            it = hosts.end() - 1;
        }
        return *it;
    };
    for (const ListedDevice& device : log.listedDevices) {
        if (device.name.rfind("RPC", 0) == 0) {
            RpcHostUsage& host = hostOf(device.description);
            host.device = device.name;
            host.freeAtStartMiB = device.freeBytes / kMiB;
        }
    }
    for (const LoggedDevice& device : log.devices()) {
        if (const std::optional<std::string> endpoint = rpcEndpointOf(device.name)) {
            hostOf(*endpoint).allocatedMiB = device.totalMiB();
        }
    }
    if (prediction) {
        for (const DeviceEstimate& device : prediction->devices) {
            if (const std::optional<std::string> endpoint = rpcEndpointOf(device.name)) {
                // Its buffers only: the overhead allowance is no buffer the log lists.
                std::uint64_t bytes = 0;
                for (const BufferEstimate& buffer : device.buffers) {
                    bytes += buffer.bytes;
                }
                hostOf(*endpoint).predictedMiB = toMiB(bytes);
            }
        }
    }
    return hosts;
}

} // namespace llamafit

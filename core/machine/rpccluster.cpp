// A machine with its RPC hosts; see rpccluster.h.
#include "core/machine/rpccluster.h"

#include "core/sizing/rpcdevices.h"

#include <algorithm>
#include <iterator>

namespace llamafit {

namespace {

bool isRpcPool(const MemoryPool& pool) {
    return pool.kind == PoolKind::RpcHost;
}

} // namespace

Machine withRpcHosts(const Machine& machine, const std::vector<RpcHost>& hosts) {
    Machine result = machine;
    // The RPC pools are the last ones (see the header), so dropping them moves no local pool.
    std::erase_if(result.pools, isRpcPool);
    std::erase_if(result.gpus, [](const MachineGpu& gpu) { return gpu.backend == Backend::Rpc; });
    std::vector<MachineGpu> rpcGpus;
    for (const RpcHost& host : hosts) {
        MemoryPool pool;
        pool.name = "RPC server " + host.endpoint;
        pool.kind = PoolKind::RpcHost;
        pool.capacityBytes = host.freeBytes;
        MachineGpu gpu;
        gpu.name = rpcBufferName(host.endpoint);
        gpu.model = "ggml-rpc-server at " + host.endpoint;
        gpu.backend = Backend::Rpc;
        gpu.poolIndex = result.pools.size();
        result.pools.push_back(std::move(pool));
        rpcGpus.push_back(std::move(gpu));
    }
    result.gpus.insert(result.gpus.begin(), std::make_move_iterator(rpcGpus.begin()),
                       std::make_move_iterator(rpcGpus.end()));
    return result;
}

std::vector<RpcHost> rpcHostsOf(const Machine& machine) {
    std::vector<RpcHost> hosts;
    for (const MachineGpu& gpu : machine.gpus) {
        if (gpu.backend != Backend::Rpc) {
            continue;
        }
        const std::optional<std::string> endpoint = rpcEndpointOf(gpu.name);
        const std::uint64_t freeBytes =
            gpu.poolIndex < machine.pools.size() ? machine.pools[gpu.poolIndex].capacityBytes : 0;
        hosts.push_back(RpcHost{endpoint.value_or(gpu.name), freeBytes});
    }
    return hosts;
}

std::vector<ClusterHost> clusterHosts(const Machine& machine) {
    std::vector<ClusterHost> hosts;
    ClusterHost local{"this machine", "", {}};
    for (std::size_t i = 0; i < machine.pools.size(); ++i) {
        if (!isRpcPool(machine.pools[i])) {
            local.poolIndices.push_back(i);
        }
    }
    hosts.push_back(std::move(local));
    for (const MachineGpu& gpu : machine.gpus) {
        if (gpu.backend == Backend::Rpc) {
            const std::string endpoint = rpcEndpointOf(gpu.name).value_or(gpu.name);
            hosts.push_back(ClusterHost{endpoint, endpoint, {gpu.poolIndex}});
        }
    }
    return hosts;
}

} // namespace llamafit

#pragma once
// A cluster: this machine plus the ggml-rpc-servers llama-server splits a model over (--rpc). Each
// server's device becomes a MachineGpu of backend Rpc, named as its buffers are
// ("RPC0[127.0.0.1:50052]", rpcdevices.h), placed in front of the local GPUs (llama.cpp's device
// order, the one -ts indexes), with a pool of its own (PoolKind::RpcHost) as large as the free
// memory the server reports: ggml-rpc-server answers GET_DEVICE_MEMORY with its device's free
// memory (ggml/src/ggml-rpc/ggml-rpc.cpp), so that figure has no reservation left to subtract.
// RPC pools come after the machine's own pools, so the local pools keep their indices and
// withRpcHosts() can replace the hosts any number of times.
// Used by `llamafit-cli plan --rpc` and the GUI's cluster view. Pure values; bytes.

#include "core/machine/memorypools.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

// One ggml-rpc-server as a plan sees it.
struct RpcHost {
    std::string endpoint;        // "127.0.0.1:50052", as --rpc names it
    std::uint64_t freeBytes = 0; // what the server reports free for its device
    bool operator==(const RpcHost&) const = default;
};

// `machine` with exactly `hosts` as its RPC devices (in --rpc order, before its own GPUs); RPC
// devices it had are replaced.
Machine withRpcHosts(const Machine& machine, const std::vector<RpcHost>& hosts);

// The RPC hosts of `machine`, in order (empty for one machine).
std::vector<RpcHost> rpcHostsOf(const Machine& machine);

// One column of a cluster view: a host and the pools its memory is in.
struct ClusterHost {
    std::string name;                     // "this machine" or the endpoint
    std::string endpoint;                 // "" for this machine
    std::vector<std::size_t> poolIndices; // into Machine::pools
    bool operator==(const ClusterHost&) const = default;
};

// This machine's pools first, then one host per RPC server.
std::vector<ClusterHost> clusterHosts(const Machine& machine);

} // namespace llamafit

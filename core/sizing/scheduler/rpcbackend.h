#pragma once
// The RPC backend as ggml's scheduler sees it (ggml/src/ggml-rpc/ggml-rpc.cpp): one device of a
// ggml-rpc-server, named and typed "RPC<d>[host:port]" (ggml_backend_rpc_init and
// ggml_backend_rpc_buffer_type name the backend and its buffer type alike). It reads only its own
// buffer type, claims every op (the client never asks the server), never asks to take over an
// op, and its buffer type's alignment and maximum size are the server backend's, as the server
// reports them at connection time. Used by the sizing engine (computeengine.cpp) and the plan
// tests. Pure values; sizes in bytes.

#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstdint>
#include <string>

namespace llamafit::scheduler {

// What a ggml-rpc-server reports of its device's buffer type (RPC_CMD_GET_ALIGNMENT,
// RPC_CMD_GET_MAX_SIZE). The defaults are ggml-cpu's: a server run with `-d CPU` aligns to
// TENSOR_ALIGNMENT (32) and reports SIZE_MAX, which ggml-alloc clamps to SIZE_MAX / 2.
struct RpcDevice {
    std::string name; // "RPC0[127.0.0.1:50052]"
    std::uint64_t alignment = 32;
    std::uint64_t maxSize = UINT64_MAX / 2;
};

SchedulerBackend rpcBackend(const RpcDevice& device);

} // namespace llamafit::scheduler

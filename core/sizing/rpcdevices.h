#pragma once
// RPC devices: what llama-server's `--rpc host:port,...` adds to the devices llama.cpp splits a
// model over. Each ggml-rpc-server endpoint is one device (the server runs one backend device,
// `ggml-rpc-server -d CPU` or `-d CUDA0`); llama.cpp puts the RPC devices *before* the local
// GPUs (src/llama.cpp: "add RPC servers at the front of the list to minimize network
// transfers"), so -ts indexes RPC0, RPC1, ..., then CUDA0/Vulkan0. The default split follows the
// free memory each server reports (src/llama-model.cpp, "default split, by free memory"); a
// ggml-rpc-server with -d CPU reports the host's memory, free = total.
//
// Used by the flag parser (the order of --gpu rpc:HOST:PORT=MiB entries), the estimator (checks
// that the GPU list holds the --rpc servers first), the CLI and the RPC integration tests.
// Pure functions; sizes in bytes.
//
// Error codes: settings.bad-value (an endpoint that is not host:port, a server named twice, an
// RPC server without its free memory, RPC devices out of llama.cpp's order); the errors carry
// Setting::RpcServers.

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// "RPC0[127.0.0.1:50052]": the buffer type name the log prints for the first (only) device of
// the server at `endpoint` (ggml/src/ggml-rpc/ggml-rpc.cpp names its buffer type "RPC" + the
// device's index on that server + "[" + endpoint + "]"; llama.cpp's device list calls the
// same device RPC0, RPC1, ... across servers, which no buffer line shows).
std::string rpcBufferName(std::string_view endpoint);

// The endpoint of an RPC device's name ("127.0.0.1:50052" of "RPC0[127.0.0.1:50052]"), or nullopt.
std::optional<std::string> rpcEndpointOf(std::string_view deviceName);

// An RPC server's device, as the estimate takes it.
GpuDevice rpcDevice(std::string_view endpoint, std::uint64_t freeBytes);

// The port of a --rpc endpoint "host:port" (split at the first ':', as ggml-rpc.cpp parse_endpoint
// does), or nullopt when it is not one (no host, a port outside 1-65535).
std::optional<std::uint16_t> rpcEndpointPort(std::string_view endpoint);

// Checks one --rpc endpoint: "host:port" with a port 1-65535 (ggml-rpc.cpp parse_endpoint splits
// at the first ':' and reads the port as an integer).
Result<bool> checkRpcEndpoint(std::string_view endpoint);

// The devices in llama.cpp's order: RPC devices first, in the order of settings.rpcServers, then
// every other device in the order given. RPC devices --rpc does not name keep their order after
// the named ones (checkRpcDevices reports them).
std::vector<GpuDevice> inLlamaDeviceOrder(const ServerSettings& settings, std::vector<GpuDevice> devices);

// The estimate's precondition: `devices` starts with exactly one RPC device per --rpc endpoint,
// in --rpc order, and holds no other RPC device.
Result<bool> checkRpcDevices(const ServerSettings& settings, const std::vector<GpuDevice>& devices);

} // namespace llamafit

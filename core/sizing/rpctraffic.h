#pragma once
// What a model split over RPC hosts sends across the network for each generated token. llama.cpp
// runs the blocks in order; where two consecutive parts of the graph sit on different devices the
// scheduler copies the activation rows (n_embd f32 per token) to the next device
// (ggml/src/ggml-backend.cpp, the split inputs of ggml_backend_sched). A copy to or from an RPC
// device crosses the network; a copy between two RPC servers crosses it twice, through the main
// host: ggml-rpc copies a tensor server-side only within one server (ggml-rpc.cpp buffer_cpy_tensor)
// and ggml_backend_tensor_copy falls back to get_tensor then set_tensor. The token embeddings are
// always looked up on the host (the input layer stays on the CPU, src/llama-model.cpp), and the
// logits row (n_vocab f32) comes back to the host from the device of the output layer.
// Not counted: the small per-graph inputs (positions, the KQ mask rows of each device's cache,
// a few KiB at most at long contexts) and each request's round trip, which a link's latency adds
// per RPC device and token; the floor here is the bytes over the link's bandwidth.
// Used by `llamafit-cli plan --rpc` and the GUI's cluster view. Pure; bytes, seconds.

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

// One place the graph moves from one device to another.
struct DeviceCrossing {
    std::string from; // "CPU", "RPC0[127.0.0.1:50052]", "Vulkan0"
    std::string to;
    std::string what;                // "embeddings", "after block 11", "logits"
    std::uint64_t bytesPerToken = 0; // the rows copied
    std::uint32_t networkHops = 0;   // 0 (same host), 1 (to or from an RPC server), 2 (between two)
    bool operator==(const DeviceCrossing&) const = default;
};

struct RpcTraffic {
    std::vector<DeviceCrossing> crossings;  // in graph order, every device change
    std::uint64_t networkBytesPerToken = 0; // sum of bytesPerToken x networkHops
    bool operator==(const RpcTraffic&) const = default;
};

// The crossings of one decoded token (one row per slot's token) with `gpus` in llama.cpp's order.
Result<RpcTraffic> rpcTrafficPerToken(const ModelInfo& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus);

// The seconds per token the network needs for `traffic` at `bitsPerSecond` (1e9 = 1 Gbit/s).
double networkSecondsPerToken(const RpcTraffic& traffic, double bitsPerSecond);

// A decode bound with that time added per token (nullopt-free: 0 stays 0).
double withNetworkFloor(double tokensPerSecond, double networkSeconds);

// The link speeds the plan shows: 1, 2.5 and 10 Gbit/s Ethernet.
inline constexpr double kLinkBitsPerSecond[] = {1e9, 2.5e9, 10e9};

} // namespace llamafit

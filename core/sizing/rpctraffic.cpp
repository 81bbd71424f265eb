// Per-token network traffic of a model split over RPC hosts; see rpctraffic.h.
#include "core/sizing/rpctraffic.h"

#include "core/sizing/layerplacement.h"

namespace llamafit {

namespace {

constexpr std::uint64_t kF32Bytes = 4;

bool isRpc(int device, const std::vector<GpuDevice>& gpus) {
    return device != kHostDevice && gpus[static_cast<std::size_t>(device)].backend == Backend::Rpc;
}

std::string deviceName(int device, const std::vector<GpuDevice>& gpus) {
    return device == kHostDevice ? std::string("CPU") : gpus[static_cast<std::size_t>(device)].name;
}

} // namespace

Result<RpcTraffic> rpcTrafficPerToken(const ModelInfo& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus) {
    Result<LayerPlacement> placement = placeLayers(model, settings, gpus);
    if (!placement) {
        return placement.error();
    }
    RpcTraffic traffic;
    const auto cross = [&](int from, int to, std::string what, std::uint64_t bytes) {
        if (from == to) {
            return;
        }
        DeviceCrossing crossing{deviceName(from, gpus), deviceName(to, gpus), std::move(what), bytes,
                                static_cast<std::uint32_t>(isRpc(from, gpus)) +
                                    static_cast<std::uint32_t>(isRpc(to, gpus))};
        traffic.networkBytesPerToken += crossing.bytesPerToken * crossing.networkHops;
        traffic.crossings.push_back(std::move(crossing));
    };
    const std::uint64_t rowBytes = std::uint64_t{model.embeddingLength} * kF32Bytes;
    int previous = kHostDevice; // the embeddings are looked up on the host
    // The trunk only: NextN blocks run in the MTP draft's own graph.
    const std::uint32_t trunk = std::min<std::uint32_t>(
        model.trunkLayerCount(), static_cast<std::uint32_t>(placement->layerDevice.size()));
    for (std::uint32_t block = 0; block < trunk; ++block) {
        const int device = placement->layerDevice[block];
        cross(previous, device, block == 0 ? "embeddings" : "after block " + std::to_string(block - 1),
              rowBytes);
        previous = device;
    }
    cross(previous, placement->outputDevice, "after block " + std::to_string(trunk == 0 ? 0 : trunk - 1),
          rowBytes);
    cross(placement->outputDevice, kHostDevice, "logits", std::uint64_t{model.vocabularySize} * kF32Bytes);
    return traffic;
}

double networkSecondsPerToken(const RpcTraffic& traffic, double bitsPerSecond) {
    return bitsPerSecond > 0 ? static_cast<double>(traffic.networkBytesPerToken) * 8.0 / bitsPerSecond : 0.0;
}

double withNetworkFloor(double tokensPerSecond, double networkSeconds) {
    if (tokensPerSecond <= 0) {
        return 0;
    }
    return 1.0 / (1.0 / tokensPerSecond + networkSeconds);
}

} // namespace llamafit

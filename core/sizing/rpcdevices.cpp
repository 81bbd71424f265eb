// RPC devices in llama.cpp's device order; see rpcdevices.h.
#include "core/sizing/rpcdevices.h"

#include <algorithm>
#include <charconv>

namespace llamafit {

namespace {

constexpr std::string_view kPrefix = "RPC0[";

Error rpcError(std::string message) {
    return makeError("settings.bad-value", std::move(message), {Setting::RpcServers}, "--rpc");
}

bool isRpc(const GpuDevice& device) {
    return device.backend == Backend::Rpc;
}

// Whether `device` is the RPC server at `endpoint` (its name is rpcBufferName(endpoint)), without
// making that name: every estimate checks the order of the devices.
bool isRpcServer(const GpuDevice& device, std::string_view endpoint) {
    const std::string_view name = device.name;
    return isRpc(device) && name.size() == kPrefix.size() + endpoint.size() + 1 &&
           name.starts_with(kPrefix) && name.substr(kPrefix.size(), endpoint.size()) == endpoint &&
           name.back() == ']';
}

} // namespace

std::string rpcBufferName(std::string_view endpoint) {
    return std::string(kPrefix) + std::string(endpoint) + "]";
}

std::optional<std::string> rpcEndpointOf(std::string_view deviceName) {
    if (deviceName.size() <= kPrefix.size() + 1 || deviceName.substr(0, kPrefix.size()) != kPrefix ||
        deviceName.back() != ']') {
        return std::nullopt;
    }
    return std::string(deviceName.substr(kPrefix.size(), deviceName.size() - kPrefix.size() - 1));
}

GpuDevice rpcDevice(std::string_view endpoint, std::uint64_t freeBytes) {
    GpuDevice device;
    device.name = rpcBufferName(endpoint);
    device.memoryBytes = freeBytes;
    device.backend = Backend::Rpc;
    return device;
}

std::optional<std::uint16_t> rpcEndpointPort(std::string_view endpoint) {
    const std::size_t colon = endpoint.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        return std::nullopt;
    }
    const std::string_view port = endpoint.substr(colon + 1);
    unsigned number = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || number == 0 ||
        number > 65535) {
        return std::nullopt;
    }
    return static_cast<std::uint16_t>(number);
}

Result<bool> checkRpcEndpoint(std::string_view endpoint) {
    if (!rpcEndpointPort(endpoint)) {
        return rpcError("bad RPC server '" + std::string(endpoint) +
                        "': expected host:port with a port 1-65535, e.g. 127.0.0.1:50052");
    }
    return true;
}

std::vector<GpuDevice> inLlamaDeviceOrder(const ServerSettings& settings, std::vector<GpuDevice> devices) {
    std::vector<GpuDevice> ordered;
    ordered.reserve(devices.size());
    for (const std::string& endpoint : settings.rpcServers) {
        const auto it = std::find_if(devices.begin(), devices.end(),
                                     [&](const GpuDevice& d) { return isRpcServer(d, endpoint); });
        if (it != devices.end()) {
            ordered.push_back(std::move(*it));
            devices.erase(it);
        }
    }
    // src/llama.cpp: the remaining RPC devices would still come before the local GPUs.
    std::stable_partition(devices.begin(), devices.end(), isRpc);
    ordered.insert(ordered.end(), std::make_move_iterator(devices.begin()),
                   std::make_move_iterator(devices.end()));
    return ordered;
}

Result<bool> checkRpcDevices(const ServerSettings& settings, const std::vector<GpuDevice>& devices) {
    const std::size_t servers = settings.rpcServers.size();
    for (std::size_t i = 0; i < servers; ++i) {
        const std::string& endpoint = settings.rpcServers[i];
        if (auto valid = checkRpcEndpoint(endpoint); !valid) {
            return valid.error();
        }
        if (std::count(settings.rpcServers.begin(), settings.rpcServers.end(), endpoint) > 1) {
            return rpcError("--rpc names " + endpoint + " twice");
        }
        const bool inPlace = i < devices.size() && isRpcServer(devices[i], endpoint);
        if (!inPlace) {
            const bool given = std::any_of(devices.begin(), devices.end(),
                                           [&](const GpuDevice& d) { return isRpcServer(d, endpoint); });
            return rpcError(
                given ? "RPC device " + rpcBufferName(endpoint) + " is not at position " + std::to_string(i) +
                            ": llama.cpp puts the --rpc servers first, in --rpc order"
                      : "--rpc " + endpoint +
                            ": the free memory of this RPC server is not given (--gpu rpc:" + endpoint +
                            "=MiB; ggml-rpc-server prints it when it starts)");
        }
    }
    for (std::size_t i = servers; i < devices.size(); ++i) {
        if (isRpc(devices[i])) {
            return rpcError("RPC device " + devices[i].name + " is not one of the --rpc servers");
        }
    }
    return true;
}

} // namespace llamafit

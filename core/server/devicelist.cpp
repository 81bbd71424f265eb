// parseDeviceList() and rpcFailureOf(); see devicelist.h.

#include "core/server/devicelist.h"

#include "core/common/units.h"

#include <algorithm>
#include <charconv>

namespace llamafit {

namespace {

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

std::optional<std::uint64_t> mibOf(std::string_view text) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value * kMiB;
}

} // namespace

// "RPC0: 127.0.0.1:50052 (24105 MiB, 24105 MiB free)". The memory is the last parenthesis: a
// description may hold its own ("llvmpipe (LLVM 15.0.6, 256 bits)").
std::optional<ListedDevice> parseDeviceLine(std::string_view line) {
    line = trimmed(line);
    const std::size_t colon = line.find(": ");
    const std::size_t open = line.rfind(" (");
    constexpr std::string_view kFree = " MiB free)";
    if (colon == std::string_view::npos || open == std::string_view::npos || open < colon ||
        line.size() < kFree.size() || line.substr(line.size() - kFree.size()) != kFree) {
        return std::nullopt;
    }
    const std::string_view memory = line.substr(open + 2, line.size() - kFree.size() - open - 2);
    const std::size_t comma = memory.find(" MiB, ");
    if (comma == std::string_view::npos) {
        return std::nullopt;
    }
    const auto total = mibOf(memory.substr(0, comma));
    const auto free = mibOf(memory.substr(comma + 6));
    if (!total || !free) {
        return std::nullopt;
    }
    return ListedDevice{std::string(trimmed(line.substr(0, colon))),
                        std::string(line.substr(colon + 2, open - colon - 2)), *total, *free};
}

namespace {

// The text after `marker` up to the end of its line, or nullopt.
std::optional<std::string> afterMarker(std::string_view log, std::string_view marker) {
    const std::size_t at = log.find(marker);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t start = at + marker.size();
    const std::size_t end = log.find('\n', start);
    return std::string(
        trimmed(log.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
}

} // namespace

std::optional<std::vector<ListedDevice>> devicesListedAfter(std::string_view output,
                                                            std::string_view header) {
    const std::size_t headerAt = output.find(header);
    if (headerAt == std::string_view::npos) {
        return std::nullopt;
    }
    std::vector<ListedDevice> devices;
    std::size_t at = output.find('\n', headerAt + header.size());
    while (at != std::string_view::npos && at + 1 < output.size()) {
        const std::size_t end = output.find('\n', at + 1);
        const std::string_view raw =
            output.substr(at + 1, end == std::string_view::npos ? std::string_view::npos : end - at - 1);
        at = end;
        if (raw.empty() || (raw.front() != ' ' && raw.front() != '\t')) {
            break; // the list's lines are indented; the first other line ends it
        }
        const std::string_view line = trimmed(raw);
        if (line == "(none)") {
            continue;
        }
        if (const auto device = parseDeviceLine(line)) {
            devices.push_back(*device);
        }
    }
    return devices;
}

Result<std::vector<ListedDevice>> parseDeviceList(std::string_view output) {
    std::optional<std::vector<ListedDevice>> devices = devicesListedAfter(output, "Available devices:");
    if (!devices) {
        return makeError("devices.no-listing", "llama-server printed no \"Available devices:\" list");
    }
    return std::move(*devices);
}

std::optional<GpuDevice> listedLocalGpu(const ListedDevice& device, const std::vector<GpuInfo>& probed) {
    const auto named = [&](std::string_view prefix) { return device.name.rfind(prefix, 0) == 0; };
    if (named("RPC")) {
        return std::nullopt;
    }
    GpuDevice gpu;
    gpu.name = device.name;
    gpu.memoryBytes = device.freeBytes;
    gpu.backend = named("CUDA")                    ? Backend::Cuda
                  : named("ROCm")                  ? Backend::Rocm
                  : named("Vulkan")                ? Backend::Vulkan
                  : named("MTL") || named("Metal") ? Backend::Metal
                                                   : Backend::Other;
    if (gpu.backend == Backend::Vulkan) {
        const auto same = std::find_if(probed.begin(), probed.end(), [&](const GpuInfo& info) {
            return info.source == "vulkan" && info.name == device.description;
        });
        if (same != probed.end()) {
            gpu.integrated = same->type == GpuType::Integrated;
            gpu.limits.maxStorageBufferRangeBytes = same->maxStorageBufferRangeBytes;
            gpu.limits.maxAllocationBytes = same->maxMemoryAllocationBytes;
        }
    }
    return gpu;
}

const ListedDevice* findRpcDevice(const std::vector<ListedDevice>& devices, std::string_view endpoint) {
    const auto found = std::find_if(devices.begin(), devices.end(), [&](const ListedDevice& device) {
        return device.name.rfind("RPC", 0) == 0 && device.description == endpoint;
    });
    return found == devices.end() ? nullptr : &*found;
}

Error unreachableRpcHost(std::string_view endpoint) {
    return makeError("rpc.unreachable",
                     "nothing is listening at " + std::string(endpoint) +
                         ": start ggml-rpc-server there (ggml-rpc-server -H HOST -p PORT) and "
                         "check that the address and port are right and reachable from this "
                         "machine, or remove it from --rpc");
}

std::optional<Error> rpcFailureOf(std::string_view log) {
    if (const auto endpoint = afterMarker(log, "Failed to connect to ")) {
        return unreachableRpcHost(*endpoint);
    }
    if (const auto version = afterMarker(log, "RPC server version mismatch:")) {
        return makeError("rpc.protocol-mismatch",
                         "an RPC server speaks protocol " + *version +
                             ", which this llama-server cannot use: run the same llama.cpp build on every "
                             "host (the protocol changes with ggml's op list)");
    }
    if (log.find("RPC HELLO failed") != std::string_view::npos ||
        log.find("RPC handshake failed") != std::string_view::npos) {
        return makeError("rpc.handshake-failed",
                         "an RPC server dropped the connection during the handshake: it may be another "
                         "program on that port, or a ggml-rpc-server of another llama.cpp build");
    }
    return std::nullopt;
}

} // namespace llamafit

#pragma once
// What the installed llama-server says about its devices: the `--list-devices` listing (with
// `--rpc host:port,...` before it, the RPC servers' devices too, with the free memory each server
// reports), and the named reason when an RPC server could not be asked. llama.cpp 0.7.0 (b11669)
// prints, in common/arg.cpp's --list-devices handler:
//     Available devices:
//       Vulkan0: llvmpipe (LLVM 15.0.6, 256 bits) (2048 MiB, 2048 MiB free)
//       RPC0: 127.0.0.1:50052 (24105 MiB, 24105 MiB free)
// and "  (none)" when there is none. An RPC server it cannot reach aborts the process from
// ggml/src/ggml-rpc/ggml-rpc.cpp: "Failed to connect to HOST:PORT"; one of another protocol:
// "RPC server version mismatch: M.m.p". Used by core/system/rpchostquery.h (`llamafit-cli devices
// --rpc`). Pure functions, Qt-free; sizes in bytes.
//
// Error codes: devices.no-listing (no "Available devices:" block), rpc.unreachable,
// rpc.protocol-mismatch, rpc.handshake-failed.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct ListedDevice {
    std::string name;        // "RPC0", "Vulkan0", "CUDA0"
    std::string description; // "127.0.0.1:50052" for an RPC device, the GPU's name otherwise
    std::uint64_t totalBytes = 0;
    std::uint64_t freeBytes = 0;
    bool operator==(const ListedDevice&) const = default;
};

// This machine's GPU as llama-server lists it, to plan for: its backend from llama.cpp's device
// name (CUDA0, ROCm0, Vulkan0, MTL0; others are Other) and the memory it reports free, which the
// default split goes by. The Vulkan device of `probed` with the same name (llama.cpp lists the
// driver's device name) gives its limits and whether it is integrated. nullopt for an RPC
// server's device.
std::optional<GpuDevice> listedLocalGpu(const ListedDevice& device, const std::vector<GpuInfo>& probed);

// The devices of a --list-devices run's output (stdout and stderr together).
Result<std::vector<ListedDevice>> parseDeviceList(std::string_view output);

// One "NAME: DESCRIPTION (TOTAL MiB, FREE MiB free)" line (spaces around it and before the colon
// allowed: llama-server's start log pads the name, "RPC0    : 127.0.0.1:50052 (...)"); nullopt for
// any other line.
std::optional<ListedDevice> parseDeviceLine(std::string_view line);

// The indented "NAME: DESCRIPTION (TOTAL MiB, FREE MiB free)" lines after the first line holding
// `header` ("Available devices:"; ggml-rpc-server's banner says "Devices:"), up to the first
// line that is not indented; lines of another shape are skipped. nullopt when no line holds it.
std::optional<std::vector<ListedDevice>> devicesListedAfter(std::string_view output, std::string_view header);

// The RPC device of a listing whose server is `endpoint` ("127.0.0.1:50052": llama.cpp describes an
// RPC device by its endpoint), or nullptr.
const ListedDevice* findRpcDevice(const std::vector<ListedDevice>& devices, std::string_view endpoint);

// rpc.unreachable for `endpoint` ("127.0.0.1:50052"), saying what to do.
Error unreachableRpcHost(std::string_view endpoint);

// Why llama.cpp could not use an RPC server, from its log; nullopt when the log names no RPC
// failure. The message names the endpoint and what to do.
std::optional<Error> rpcFailureOf(std::string_view log);

} // namespace llamafit

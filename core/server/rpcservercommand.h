#pragma once
// ggml-rpc-server as LlamaFit starts it here, or tells the user to start it on another host:
// its argv, and the scripts for a remote host (a POSIX shell line, a systemd unit, a Windows
// .bat). llama.cpp 0.7.0's tools/rpc/rpc-server.cpp takes `-H HOST` (default 127.0.0.1),
// `-p PORT` (default 50052), `-d DEV,...`, `-t N` (CPU threads) and `-c` (a local tensor cache),
// and prints a warning when bound to any other address than 127.0.0.1: the server has no
// authentication, anyone who reaches the port can run graphs and read memory through it. LlamaFit
// binds 127.0.0.1 unless the user names another address, and then every script it writes carries
// llama.cpp's warning.
// Also reads the server's start banner (the devices it serves and their free memory, as printed
// after "Devices:") and the ways it refuses to start. Pure: text in, text out.
//
// Error codes: rpc-server.bad-option (an empty device name, port 0), rpc-server.port-in-use
// ("Failed to create server socket"), rpc-server.unknown-device ("error: unknown device: X"),
// export.unrepresentable (a script format cannot carry an argument).

#include "core/common/result.h"
#include "core/server/devicelist.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

inline constexpr std::uint16_t kDefaultRpcServerPort = 50052; // tools/rpc/rpc-server.cpp

struct RpcServerOptions {
    std::string host = "127.0.0.1";             // -H; anything else is exposed (see the header)
    std::uint16_t port = kDefaultRpcServerPort; // -p
    std::vector<std::string> devices;           // -d: "CPU", "Vulkan0", "CUDA0"; empty = the server's default
    std::optional<unsigned> threads;            // -t: the CPU device's threads
    bool cache = false;                         // -c
    bool operator==(const RpcServerOptions&) const = default;
};

// llama.cpp's own warning for a server bound beyond loopback (rpc-server.cpp, printed at start).
inline constexpr std::string_view kRpcServerExposureWarning =
    "Never expose the RPC server to an open network! This is an experimental feature and is not secure!";

// The arguments (without the program), in the server's own spelling; rpc-server.bad-option for a
// port 0 or an empty device name.
Result<std::vector<std::string>> rpcServerArguments(const RpcServerOptions& options);

// Whether `options` binds beyond this computer (isLoopbackHost, exposure.h).
bool exposesRpcServer(const RpcServerOptions& options);

// "HOST:PORT" the main host's --rpc names for this server. `reachableHost` is the address the
// main host uses when the server binds a wildcard (0.0.0.0) or another name.
std::string rpcServerEndpoint(const RpcServerOptions& options, std::string_view reachableHost = {});

// Scripts to run the server on a remote host; each carries llama.cpp's warning as a comment when
// the server is exposed. `program` is the ggml-rpc-server path on that host.
Result<std::string> rpcServerShellScript(std::string_view program, const RpcServerOptions& options);
Result<std::string> rpcServerSystemdUnit(std::string_view program, const RpcServerOptions& options);
Result<std::string> rpcServerBatchFile(std::string_view program, const RpcServerOptions& options); // CRLF

// The devices a running server says it serves, from its start banner ("Devices:" then lines like
// "  CPU: AMD EPYC (24105 MiB, 24105 MiB free)"); empty while the banner has not come.
std::vector<ListedDevice> rpcServerDevices(std::string_view output);

// Why the server's output says it could not start (port in use, unknown device); nullopt if it
// names no such reason.
std::optional<Error> rpcServerStartFailure(std::string_view output, const RpcServerOptions& options);

} // namespace llamafit

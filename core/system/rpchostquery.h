#pragma once
// Asks the installed llama-server which devices it would use with `--rpc host:port,...`: runs
// `llama-server --rpc LIST --list-devices` (the RPC servers answer with the free memory they
// really have) and reads the listing (core/server/devicelist.h). The same engine and build that
// will serve, so a host it cannot reach, or one of another protocol, fails here with llama.cpp's
// own reason before anything is launched. Blocking (QProcess with a deadline): for the CLI and
// tests; the GUI's cluster view will run it off the GUI thread.
//
// firstSilentEndpoint() names the host a failed run lost: the first endpoint that no longer accepts
// a TCP connection (llama.cpp's "Remote RPC server crashed" line does not say which).
//
// Error codes: rpc.bad-endpoint (an endpoint that is not host:port), rpc.no-server (the
// llama-server program did not start), rpc.timeout, those of rpcFailureOf (rpc.unreachable,
// rpc.protocol-mismatch, rpc.handshake-failed), devices.no-listing.

#include "core/common/result.h"
#include "core/server/devicelist.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct RpcHostQuery {
    std::string llamaServer;            // the llama-server program (a path or a name on PATH)
    std::vector<std::string> endpoints; // "127.0.0.1:50052", in --rpc order
    std::chrono::milliseconds timeout{30000};
};

// The devices llama.cpp lists: the RPC servers' (RPC0, RPC1, ... in --rpc order) and this
// machine's GPUs.
Result<std::vector<ListedDevice>> queryListedDevices(const RpcHostQuery& query);

// The first of `endpoints` ("host:port") that refuses a connection or does not accept one within
// `timeout`; nullopt when all accept. Blocking, at most `timeout` per endpoint.
std::optional<std::string> firstSilentEndpoint(const std::vector<std::string>& endpoints,
                                               std::chrono::milliseconds timeout);

} // namespace llamafit

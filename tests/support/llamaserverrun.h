#pragma once
// Runs the real llama-server once for the integration tests: spawns it (posix_spawn,
// arguments as a list, no shell) on a free 127.0.0.1 port, captures stdout+stderr into a
// string, and stops it as soon as the log says what the test needs (by default: every
// allocation line is printed, the server listens, or loading failed), when it exits on its
// own, or at a hard deadline. The child is always stopped and reaped before returning:
// SIGTERM, a grace period for the exit-time log lines, then SIGKILL. Waits on events
// (poll on the pipe and a pidfd), never sleeps. Test support only; Linux only.
//
// Error codes: test.server-not-found (with how to install it), test.server-unavailable (the
// fetch script could not get the pinned build here; the message is its reason),
// test.spawn-failed, test.no-free-port, test.io-failed.

#include "core/common/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llamafit::test {

// The llama-server to test against: $LLAMAFIT_LLAMA_SERVER (path of the wrapper that
// scripts/fetch-llama-server.sh writes), else the wrapper in the folder configured with the
// CMake cache variable LLAMAFIT_LLAMA_SERVER_ROOT (default <repo>/.llama-server).
Result<std::string> findLlamaServer();

// The multi-backend llama-server of the same build (CPU, Vulkan and RPC backends, lavapipe
// visible as Vulkan0): $LLAMAFIT_GPU_LLAMA_SERVER, else <LLAMAFIT_LLAMA_SERVER_ROOT>/gpu/llama-server,
// both written by scripts/fetch-llama-server.sh.
Result<std::string> findGpuLlamaServer();

// A tool of that GPU rig: $variable, else <LLAMAFIT_LLAMA_SERVER_ROOT>/relative
// (findGpuLlamaServer, and findRpcServer in rpcserverrun.h); test.server-unavailable when the
// pinned build cannot be fetched here, test.server-not-found when the tool is missing.
Result<std::string> findRigTool(const char* variable, const std::string& relative);

// For posix_spawn: this process's environment with `extra` added (or replacing the same
// names), and a NULL-terminated pointer array over strings the caller keeps alive.
std::vector<std::string> environmentWith(const std::vector<std::pair<std::string, std::string>>& extra);
std::vector<char*> pointers(std::vector<std::string>& strings);

// Why the live llama-server cannot be used here: the one line scripts/fetch-llama-server.sh
// leaves in LLAMAFIT_LLAMA_SERVER_ROOT/UNAVAILABLE when it cannot fetch the pinned build (the
// archive has moved on, no network). nullopt when that file is absent or $LLAMAFIT_LLAMA_SERVER
// names a server. The tests that need the live server skip with it (tests/support/liveserverskip.h);
// a server that is merely missing, with no such file, stays a failure.
std::optional<std::string> liveServerUnavailableReason();

// A TCP port on 127.0.0.1 that is free right now, from 18000-18999 (picked at random and
// checked by binding it), else any port the kernel hands out.
std::optional<std::uint16_t> pickFreePort();

struct ServerRunOptions {
    std::string executable;
    std::vector<std::string> args; // after the executable; the runner appends --host/--port
    std::vector<std::pair<std::string, std::string>> environment; // added to (or replacing in) ours
    std::chrono::milliseconds timeout{std::chrono::seconds(120)}; // from spawn to the stop condition
    std::chrono::milliseconds stopGrace{std::chrono::seconds(5)}; // after SIGTERM, before SIGKILL
    // Called with the whole log so far after every read; empty = allocationLogFinished().
    std::function<bool(std::string_view log)> stopWhen;
};

struct ServerRunResult {
    std::string log; // stdout and stderr, interleaved as written
    std::uint16_t port = 0;
    bool stopConditionMet = false; // stopWhen became true (we then stopped the server)
    bool exitedOnItsOwn = false;   // it exited before we asked it to
    bool timedOut = false;         // neither happened before the deadline
    bool killed = false;           // it ignored SIGTERM for stopGrace and got SIGKILL
    std::optional<int> exitCode;   // when it exited normally
    std::optional<int> signal;     // when a signal ended it
    std::chrono::milliseconds elapsed{0};
};

Result<ServerRunResult> runLlamaServer(const ServerRunOptions& options);

} // namespace llamafit::test

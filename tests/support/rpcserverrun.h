#pragma once
// RpcServerRun: one real ggml-rpc-server on 127.0.0.1 for the RPC integration tests
// (`ggml-rpc-server -H 127.0.0.1 -p PORT -d CPU`, never any other address). It owns the
// process: its own process group, killed with the test process too (PR_SET_PDEATHSIG), and
// stopped by the destructor (SIGTERM to the group, a grace period, then SIGKILL, then reaped),
// so no server outlives its test. Test support only; Linux only.
//
// Readiness: ggml-rpc-server printf()s its banner without flushing before its first client, so
// a pipe shows nothing; start() waits for the port to accept a connection instead (checked on
// every wake-up of a poll on the server's output, with a deadline).
//
// Error codes: test.server-not-found, test.spawn-failed, test.no-free-port, test.rpc-not-ready
// (exited or did not listen before the deadline; the message holds its output).

#include "core/common/result.h"
#include "tests/support/llamaserverrun.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llamafit::test {

// The GPU rig's ggml-rpc-server: $LLAMAFIT_RPC_SERVER, else ROOT/gpu/ggml-rpc-server
// (findRigTool in llamaserverrun.h; the GPU llama-server is findGpuLlamaServer there).
Result<std::string> findRpcServer();

class RpcServerRun {
  public:
    RpcServerRun(const RpcServerRun&) = delete;
    RpcServerRun& operator=(const RpcServerRun&) = delete;
    ~RpcServerRun();

    // Starts `executable -H 127.0.0.1 -p <a free port> -d CPU` with `environment` added to ours
    // and waits until it listens (at most `readyTimeout`).
    static Result<std::unique_ptr<RpcServerRun>>
    start(const std::string& executable, const std::vector<std::pair<std::string, std::string>>& environment,
          std::chrono::milliseconds readyTimeout = std::chrono::seconds(20));

    std::uint16_t port() const { return m_port; }
    std::string endpoint() const { return "127.0.0.1:" + std::to_string(m_port); }
    int pid() const { return m_pid; }

  private:
    RpcServerRun() = default;
    void stop();
    std::string drainOutput();

    int m_pid = -1;
    int m_output = -1; // read end of its stdout+stderr
    std::uint16_t m_port = 0;
};

} // namespace llamafit::test

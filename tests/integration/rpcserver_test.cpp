// RPC devices against the real thing: for every case of the RPC matrix
// (tests/support/rpccases.h), two ggml-rpc-server on 127.0.0.1 (free ports, -d
// CPU), then llama-server --rpc on the case's sparse GGUF (-lv 4 --no-warmup
// -fit off -t 2); what it allocated per server is compared with
// estimateMemory(model, settings, the RPC devices with the free memory the log
// lists). Model, KV, RS and output buffers must match per buffer type, that is
// per server ("RPC0[127.0.0.1:P]"), and compute buffers be within 5 % (also
// printed as figures, "[ compute  ]" lines).
//
// Environment: LLAMAFIT_GPU_LLAMA_SERVER / LLAMAFIT_RPC_SERVER (default: the
// GPU rig of scripts/fetch-llama-server.sh), LLAMAFIT_KEEP_LOGS=DIR (every log,
// its endpoints replaced by the recorded ones; scripts/record-rpc-runs.sh turns
// them into tests/data/recorded/rpc-b11669).

#include "tests/integration/rpccaserun.h"
#include "tests/support/livesample.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/rpcserverrun.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace llamafit::test {

void PrintTo(const RpcCase& testCase, std::ostream* out) {
    *out << testCase.name();
}

namespace {

class RpcServerTest : public ::testing::TestWithParam<RpcCase> {};

TEST_P(RpcServerTest, AllocationMatchesEstimatePerServer) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    checkRpcCaseAgainstServer(GetParam());
}

// The fixture part the matrix relies on: a started server listens on loopback,
// and once the object is gone, so is the process (reaped: no zombie, no orphan)
// and its port.
TEST(RpcServerProcessTest, ListensOnLoopbackAndLeavesNothingBehind) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto rpcServer = findRpcServer();
    ASSERT_TRUE(rpcServer.ok()) << rpcServer.error().message;
    auto server = RpcServerRun::start(*rpcServer, {{"GGML_VK_VISIBLE_DEVICES", ""}});
    ASSERT_TRUE(server.ok()) << server.error().code << ": " << server.error().message;
    const int pid = (*server)->pid();
    const std::uint16_t port = (*server)->port();
    EXPECT_EQ((*server)->endpoint(), "127.0.0.1:" + std::to_string(port));
    EXPECT_EQ(::kill(pid, 0), 0);
    server->reset();
    errno = 0;
    EXPECT_EQ(::kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    EXPECT_NE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ::close(fd);
}

std::string rpcCaseName(const ::testing::TestParamInfo<RpcCase>& info) {
    return info.param.name();
}

// ctest runs RpcLive, the covering sample of livesample.h; RpcMatrix, every case, is for
// scripts/record-rpc-runs.sh.
INSTANTIATE_TEST_SUITE_P(RpcLive, RpcServerTest, ::testing::ValuesIn(coveringLiveSample(rpcCases())),
                         rpcCaseName);
INSTANTIATE_TEST_SUITE_P(RpcMatrix, RpcServerTest, ::testing::ValuesIn(rpcCases()), rpcCaseName);

} // namespace
} // namespace llamafit::test

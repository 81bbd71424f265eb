// `llamafit-cli devices --rpc` against the real engine: two ggml-rpc-server on 127.0.0.1 (free
// ports, -d CPU, never another address) asked through the GPU rig's llama-server --list-devices;
// a port with nothing listening is named before anything is launched (issue 12 item 1).

#include "core/common/units.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/commandrun.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/readtext.h"
#include "tests/support/rpcserverrun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <sstream>

namespace llamafit::test {
namespace {

class RpcHostsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const auto server = findGpuLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_llamaServer = *server;
        const auto rpcServer = findRpcServer();
        ASSERT_TRUE(rpcServer.ok()) << rpcServer.error().message;
        for (int i = 0; i < 2; ++i) {
            auto started = RpcServerRun::start(*rpcServer, {{"GGML_VK_VISIBLE_DEVICES", ""}});
            ASSERT_TRUE(started.ok()) << started.error().message;
            m_servers.push_back(std::move(*started));
        }
        std::string error;
        m_directory = scratchDirectory(error);
        ASSERT_FALSE(m_directory.empty()) << error;
    }

    // `llamafit-cli devices --rpc LIST --server <rig> ARGS...`; stderr into `m_err`.
    CommandRun devices(const std::string& list, const std::vector<std::string>& more = {}) {
        std::string line = "GGML_VK_VISIBLE_DEVICES= " + shellQuote(LLAMAFIT_CLI_PATH) + " devices --rpc " +
                           shellQuote(list) + " --server " + shellQuote(m_llamaServer);
        for (const std::string& word : more) {
            line += " " + shellQuote(word);
        }
        const std::string errPath = m_directory + "/rpchosts.err";
        const CommandRun run = runShellCommand(line + " 2>" + shellQuote(errPath));
        m_err = readText(errPath);
        return run;
    }

    std::string m_llamaServer;
    std::vector<std::unique_ptr<RpcServerRun>> m_servers;
    std::string m_directory;
    std::string m_err;
};

TEST_F(RpcHostsTest, ListsEachServerWithTheMemoryItReports) {
    const std::string a = m_servers[0]->endpoint();
    const std::string b = m_servers[1]->endpoint();
    const CommandRun run = devices(a + "," + b, {"--json"});
    ASSERT_EQ(run.exitCode, 0) << m_err;
    const auto out = nlohmann::json::parse(run.out);
    std::vector<nlohmann::json> rpc;
    for (const auto& device : out.at("devices")) {
        if (device.at("name").get<std::string>().rfind("RPC", 0) == 0) {
            rpc.push_back(device);
        }
    }
    ASSERT_EQ(rpc.size(), 2u) << run.out;
    EXPECT_EQ(rpc[0].at("name"), "RPC0");
    EXPECT_EQ(rpc[0].at("description"), a);
    EXPECT_EQ(rpc[1].at("name"), "RPC1");
    EXPECT_EQ(rpc[1].at("description"), b);
    for (const auto& device : rpc) {
        // -d CPU: the server reports this machine's memory, free at most total.
        EXPECT_GT(device.at("free_bytes").get<std::uint64_t>(), 0u);
        EXPECT_LE(device.at("free_bytes").get<std::uint64_t>(),
                  device.at("total_bytes").get<std::uint64_t>());
    }
    const std::string offline = out.at("offline_flags");
    EXPECT_NE(offline.find("--gpu rpc:" + a + "=" +
                           std::to_string(rpc[0].at("free_bytes").get<std::uint64_t>() / kMiB)),
              std::string::npos)
        << offline;
}

TEST_F(RpcHostsTest, EstimateAsksTheServersLiveAndPlansAsWithTheirFreeMemoryGiven) {
    const std::string list = m_servers[0]->endpoint() + "," + m_servers[1]->endpoint();
    const CommandRun listed = devices(list, {"--json"});
    ASSERT_EQ(listed.exitCode, 0) << m_err;
    const std::string offline = nlohmann::json::parse(listed.out).at("offline_flags");
    const auto estimate = [&](const std::string& rpcWords) {
        const std::string errPath = m_directory + "/rpchosts-estimate.err";
        const CommandRun run =
            runShellCommand("GGML_VK_VISIBLE_DEVICES= " + shellQuote(LLAMAFIT_CLI_PATH) +
                            " estimate --json -m llama-3-8b-q4_k_m -c 8192 -np 1 " + rpcWords + " --server " +
                            shellQuote(m_llamaServer) + " 2>" + shellQuote(errPath));
        m_err = readText(errPath);
        return run;
    };
    const CommandRun live = estimate("--rpc " + shellQuote(list));
    ASSERT_EQ(live.exitCode, 0) << m_err;
    const CommandRun planned = estimate(offline); // "--rpc A,B --gpu rpc:A=MiB --gpu rpc:B=MiB"
    ASSERT_EQ(planned.exitCode, 0) << m_err;
    const auto liveJson = nlohmann::json::parse(live.out);
    EXPECT_EQ(liveJson.at("devices"), nlohmann::json::parse(planned.out).at("devices"));
    EXPECT_EQ(liveJson.at("devices").size(), 3u) << live.out; // CPU and the two servers
}

TEST_F(RpcHostsTest, APortWithNothingListeningIsNamedBeforeAnyLaunch) {
    const std::string live = m_servers[0]->endpoint();
    const std::string gone = m_servers[1]->endpoint();
    m_servers[1].reset(); // stopped and reaped: nothing listens on its port now
    const CommandRun run = devices(live + "," + gone);
    EXPECT_EQ(run.exitCode, 1) << run.out;
    EXPECT_NE(m_err.find("[rpc.unreachable]"), std::string::npos) << m_err;
    EXPECT_NE(m_err.find("nothing is listening at " + gone), std::string::npos) << m_err;
}

TEST_F(RpcHostsTest, LaunchChecksEveryHostBeforeStartingAnything) {
    const std::string gone = m_servers[1]->endpoint();
    m_servers[1].reset();
    const std::string errPath = m_directory + "/rpchosts-launch.err";
    const CommandRun run =
        runShellCommand(shellQuote(LLAMAFIT_CLI_PATH) + " launch -m llama-3.2-1b-q8_0 -c 512 --rpc " +
                        shellQuote(m_servers[0]->endpoint() + "," + gone) + " --server " +
                        shellQuote(m_llamaServer) + " 2>" + shellQuote(errPath));
    m_err = readText(errPath);
    EXPECT_EQ(run.exitCode, 2) << run.out;
    EXPECT_NE(m_err.find("nothing is listening at " + gone), std::string::npos) << m_err;
    EXPECT_EQ(run.out.find("llama-server"), std::string::npos) << "nothing was started: " << run.out;
}

TEST_F(RpcHostsTest, AnEndpointWithoutAPortIsBadInput) {
    const CommandRun run = devices("127.0.0.1");
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(m_err.find("[rpc.bad-endpoint]"), std::string::npos) << m_err;
}

} // namespace
} // namespace llamafit::test

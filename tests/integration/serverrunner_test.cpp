// The runner itself, against the real llama-server: it is found (or the failure says how to
// install it), it stops the server once the allocation is logged, it notices a server that
// exits on its own, and its hard deadline holds.

#include "core/server/allocationlog.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace llamafit::test {
namespace {

class ServerRunnerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const auto server = findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = *server;
        std::string error;
        const std::string& directory = scratchDirectory(error);
        ASSERT_FALSE(directory.empty()) << error;
        m_model = directory + "/runner-tiny.gguf";
        const auto written = writeTinyModel(m_model);
        ASSERT_TRUE(written.ok()) << written.error().message;
    }
    ServerRunOptions options(std::vector<std::string> extra = {}) const {
        ServerRunOptions o;
        o.executable = m_server;
        o.args = {"-m", m_model, "-lv", "4",   "--no-warmup", "-fit", "off",
                  "-t", "2",     "-c",  "512", "-np",         "1"};
        o.args.insert(o.args.end(), extra.begin(), extra.end());
        return o;
    }
    std::string m_server;
    std::string m_model;
};

TEST_F(ServerRunnerTest, StopsOnceTheAllocationIsLogged) {
    const auto run = runLlamaServer(options());
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_TRUE(run->stopConditionMet) << run->log;
    EXPECT_FALSE(run->timedOut);
    EXPECT_FALSE(run->exitedOnItsOwn);
    EXPECT_TRUE(run->exitCode || run->signal); // reaped
    EXPECT_TRUE(allocationLogFinished(run->log));
    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok());
    EXPECT_TRUE(log->reserveComplete);
    EXPECT_FALSE(log->kvCaches.empty());
    EXPECT_GE(run->port, 1024);
}

TEST_F(ServerRunnerTest, WaitsForTheServerLoopWhenAsked) {
    auto o = options();
    // "all slots are idle" comes from the running task loop, after "listening on". A SIGTERM
    // sent between the two is lost (llama.cpp tools/server/server-queue.cpp: start_loop sets
    // running = true after the handler's terminate()), and the server then ends only at
    // SIGKILL, without its exit-time lines (seen once in a full run).
    o.stopWhen = [](std::string_view log) {
        return log.find("all slots are idle") != std::string_view::npos;
    };
    const auto run = runLlamaServer(o);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_TRUE(run->stopConditionMet);
    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok());
    EXPECT_TRUE(log->listening);
    EXPECT_NE(run->log.find("127.0.0.1:" + std::to_string(run->port)), std::string::npos);
    // SIGTERM lets the server print its exit-time memory breakdown before it ends.
    EXPECT_FALSE(run->killed);
    EXPECT_EQ(log->breakdownTables.size(), 1u);
}

TEST_F(ServerRunnerTest, NoticesAServerThatExitsOnItsOwn) {
    const auto run = runLlamaServer(options({"--no-such-flag"}));
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_TRUE(run->exitedOnItsOwn);
    EXPECT_FALSE(run->stopConditionMet);
    EXPECT_EQ(run->exitCode, 1);
    EXPECT_NE(run->log.find("--no-such-flag"), std::string::npos) << run->log;
}

TEST_F(ServerRunnerTest, HardDeadlineStopsAServerThatNeverSatisfiesTheCondition) {
    auto o = options();
    o.stopWhen = [](std::string_view) { return false; };
    o.timeout = std::chrono::milliseconds(1500);
    const auto run = runLlamaServer(o);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_TRUE(run->timedOut);
    EXPECT_TRUE(run->exitCode || run->signal);
    EXPECT_GE(run->elapsed, std::chrono::milliseconds(1500));
    EXPECT_LT(run->elapsed, std::chrono::milliseconds(1500) + o.stopGrace + std::chrono::seconds(2));
}

TEST(ServerLocationTest, MissingServerFailsWithInstructions) {
    const char* previous = std::getenv("LLAMAFIT_LLAMA_SERVER");
    const std::string saved = previous ? previous : "";
    ::setenv("LLAMAFIT_LLAMA_SERVER", "/nonexistent/llama-server", 1);
    const auto server = findLlamaServer();
    if (previous) {
        ::setenv("LLAMAFIT_LLAMA_SERVER", saved.c_str(), 1);
    } else {
        ::unsetenv("LLAMAFIT_LLAMA_SERVER");
    }
    ASSERT_FALSE(server.ok());
    EXPECT_EQ(server.error().code, "test.server-not-found");
    EXPECT_NE(server.error().message.find("scripts/fetch-llama-server.sh"), std::string::npos);
}

TEST(ServerLocationTest, FreePortCanBeBound) {
    const auto port = pickFreePort();
    ASSERT_TRUE(port);
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(*port);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ::close(fd);
}

} // namespace
} // namespace llamafit::test

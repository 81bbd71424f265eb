// `llamafit-cli launch` memory output end to end with the real llama-server: once Ready, the
// predicted-versus-actual table (the KV cache exact, so not flagged); under an address-space
// rlimit (util-linux prlimit on the CLI, inherited by its server) a KV-cache allocation failure
// with the component named and a smaller context offered; without --gpu, the GPUs the server
// lists. Waits through QSignalSpy, no sleeps.

#include "tests/integration/launchclifixture.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/sanitizers.h"

#include <csignal>
#include <filesystem>

namespace llamafit {
namespace {

class LaunchMemoryTest : public test::LaunchCliFixture {
  protected:
    LaunchMemoryTest() : LaunchCliFixture("launch-memory-tiny.gguf") {}
    QStringList launchArgs(const QStringList& flags) const {
        return QStringList{QStringLiteral("launch"),
                           QStringLiteral("-m"),
                           m_model,
                           QStringLiteral("--server"),
                           m_server,
                           QStringLiteral("--no-warmup"),
                           QStringLiteral("-fit"),
                           QStringLiteral("off"),
                           QStringLiteral("-t"),
                           QStringLiteral("1")} +
               flags;
    }
};

TEST_F(LaunchMemoryTest, PrintsPredictedVersusActualOnceReady) {
    QSignalSpy finished(&m_cli, &QProcess::finished);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH), launchArgs({QStringLiteral("-c"), QStringLiteral("1024"),
                                                               QStringLiteral("-np"), QStringLiteral("2")}));
    const QByteArray output = readUntil("status: ready", 60000);
    ASSERT_TRUE(output.contains("predicted vs actual (MiB):")) << output.toStdString();
    EXPECT_EQ(output.count("predicted vs actual"), 1);
    // Sized for the build the launch runs, as its --version says.
    EXPECT_TRUE(output.contains("predicted for llama.cpp b11669\n")) << output.toStdString();
    // 2 layers x 1024 cells x 32 x f16 x (K + V) = 0.25 MiB, predicted and allocated alike.
    EXPECT_TRUE(output.contains("  CPU         kv              0.25 MiB       0.25 MiB"))
        << output.toStdString();
    EXPECT_TRUE(output.contains("  CPU         model")) << output.toStdString();
    ::kill(static_cast<pid_t>(m_cli.processId()), SIGINT);
    ASSERT_TRUE(finished.wait(15000));
    EXPECT_EQ(m_cli.exitCode(), 0);
}

TEST_F(LaunchMemoryTest, WithoutGpuFlagsThePredictionHasTheGpusTheServerLists) {
    // The GPU rig's build lists lavapipe's Vulkan0: without --gpu the prediction is for it, with
    // the free memory the server reports and the driver's limits, next to what the server logged.
    const Result<std::string> gpuServer = test::findGpuLlamaServer();
    if (!gpuServer) {
        GTEST_SKIP() << gpuServer.error().message;
    }
    QStringList args = launchArgs({QStringLiteral("-c"), QStringLiteral("1024"), QStringLiteral("-np"),
                                   QStringLiteral("1"), QStringLiteral("-ngl"), QStringLiteral("all")});
    args[args.indexOf(m_server)] = QString::fromStdString(*gpuServer);
    QSignalSpy finished(&m_cli, &QProcess::finished);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH), args);
    const QByteArray output = readUntil("status: ready", 60000);
    ASSERT_TRUE(output.contains("predicted vs actual (MiB):")) << output.toStdString();
    int vulkanRows = 0;
    for (const QByteArray& line : output.split('\n')) {
        if (line.startsWith("  Vulkan0") || line.startsWith("! Vulkan0")) {
            ++vulkanRows;
            EXPECT_FALSE(line.startsWith("!")) << line.toStdString() << "\n" << output.toStdString();
        }
    }
    // Predicted for a CPU-only run, each Vulkan0 row was flagged at -100 %.
    EXPECT_GE(vulkanRows, 3) << output.toStdString(); // model, kv, compute, total
    EXPECT_TRUE(m_cli.readAllStandardError().contains("predicting for Vulkan0 (llvmpipe"));
    ::kill(static_cast<pid_t>(m_cli.processId()), SIGINT);
    ASSERT_TRUE(finished.wait(15000));
    EXPECT_EQ(m_cli.exitCode(), 0);
}

TEST_F(LaunchMemoryTest, KvCacheOverRlimitNamesTheComponentAndAFix) {
    if (LLAMAFIT_UNDER_ASAN) {
        GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow memory: llamafit-cli cannot start "
                        "under a 500 MiB RLIMIT_AS (the normal build runs this test)";
    }
    if (!std::filesystem::exists("/usr/bin/prlimit")) {
        GTEST_SKIP() << "/usr/bin/prlimit (util-linux) is needed to set RLIMIT_AS";
    }
    QSignalSpy finished(&m_cli, &QProcess::finished);
    // 500 MiB of address space: the 488 MiB KV cache of 2000128 cells cannot be allocated.
    m_cli.start(
        QStringLiteral("/usr/bin/prlimit"),
        QStringList{QStringLiteral("--as=%1").arg(500ull * 1024 * 1024), QStringLiteral(LLAMAFIT_CLI_PATH)} +
            launchArgs({QStringLiteral("-c"), QStringLiteral("2000000"), QStringLiteral("-np"),
                        QStringLiteral("1")}));
    ASSERT_TRUE(finished.wait(60000));
    const std::string err = m_cli.readAllStandardError().toStdString();
    EXPECT_EQ(m_cli.exitCode(), 1) << err;
    EXPECT_NE(err.find("allocation-failed"), std::string::npos) << err;
    EXPECT_NE(err.find("the KV cache (488.31 MiB) did not fit in CPU"), std::string::npos) << err;
    EXPECT_NE(err.find("fix: context 2000000 → 2048"), std::string::npos) << err;
}

} // namespace
} // namespace llamafit

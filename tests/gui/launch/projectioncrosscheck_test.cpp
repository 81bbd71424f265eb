// The launch panel's background cross-check (ui/launch/projectioncrosscheck.h) with the real
// llama-fit-params beside the test's llama-server (CPU-only build 0.7.0, b11669) on the tiny model:
// llama.cpp's projection next to LlamaFit's, a settings change that cancels a pending check and
// answers for the new settings, a missing tool, and a plan for another machine. Waits through
// QSignalSpy with deadlines (never sleeps).
#include "tests/gui/launch/launchfixture.h"
#include "ui/launch/launchpanel.h"
#include "ui/launch/projectioncrosscheck.h"

#include <QLabel>
#include <QRegularExpression>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <csignal>
#endif

namespace llamafit::test {
namespace {

using CheckState = ProjectionCrossCheck::State;

class ProjectionCrossCheckTest : public LaunchFixture {
  protected:
    // Waits until the check settles (Done, Failed or Off) and returns its state.
    static CheckState settle(ProjectionCrossCheck& check) {
        QSignalSpy spy(&check, &ProjectionCrossCheck::changed);
        waitUntil(
            spy, [&] { return check.state() != CheckState::Waiting; }, 60000);
        return check.state();
    }
};

TEST_F(ProjectionCrossCheckTest, ShowsLlamaCppsProjectionNextToLlamaFits) {
    LaunchPanel panel(m_session.get(), &m_process);
    panel.setServerBinary(m_server);
    ProjectionCrossCheck& check = *panel.projectionCheck();
    ASSERT_FALSE(check.tool().isEmpty()) << "llama-fit-params is installed beside the test's llama-server";
    ASSERT_EQ(settle(check), CheckState::Done) << check.message().toStdString();
    EXPECT_EQ(check.build(), QStringLiteral("b11669"));
    ASSERT_EQ(check.rows().size(), 1u); // a CPU-only machine: the Host row
    const ProjectionCheckRow& host = check.rows().front();
    EXPECT_EQ(host.device, "Host");
    EXPECT_GT(host.llamaCppMiB, 0);
    EXPECT_FALSE(host.differs) << host.llamaCppMiB << " vs " << host.llamaFitMiB;
    const auto* label = panel.findChild<QLabel*>(QStringLiteral("projectionCheckLabel"));
    ASSERT_NE(label, nullptr);
    const QRegularExpression line(
        QStringLiteral(R"(Host: llama\.cpp b11669 projects (\d+) MiB, LlamaFit (\d+) MiB)"));
    const QRegularExpressionMatch match = line.match(label->text());
    ASSERT_TRUE(match.hasMatch()) << label->text().toStdString();
    EXPECT_EQ(match.captured(1).toLongLong(), host.llamaCppMiB);
    EXPECT_FALSE(label->text().contains(QStringLiteral("differs")));
}

TEST_F(ProjectionCrossCheckTest, AChangeCancelsThePendingCheckAndTheAnswerIsForTheNewSettings) {
    ProjectionCrossCheck check(m_session.get());
    check.setTool(ProjectionCrossCheck::toolBesideServer(m_server));
    ASSERT_EQ(settle(check), CheckState::Done) << check.message().toStdString();
    ASSERT_EQ(check.rows().size(), 1u);
    const std::int64_t smallContext = check.rows().front().llamaCppMiB;

    // Two changes in a row: the first one's check never reports; the answer is the second's.
    ServerSettings settings = m_session->settings();
    settings.contextTokens = 2048;
    m_session->setSettings(settings);
    EXPECT_EQ(check.state(), CheckState::Waiting);
    settings.contextTokens = 32768;
    m_session->setSettings(settings);
    ASSERT_EQ(settle(check), CheckState::Done) << check.message().toStdString();
    ASSERT_EQ(check.rows().size(), 1u);
    EXPECT_GT(check.rows().front().llamaCppMiB, smallContext); // a larger KV cache
    EXPECT_FALSE(check.rows().front().differs)
        << check.rows().front().llamaCppMiB << " vs " << check.rows().front().llamaFitMiB;
}

TEST_F(ProjectionCrossCheckTest, AChangeWhileTheToolRunsKillsItAndReapsIt) {
    ProjectionCrossCheck check(m_session.get());
    check.setTool(ProjectionCrossCheck::toolBesideServer(m_server));
    ASSERT_EQ(settle(check), CheckState::Done) << check.message().toStdString(); // the build is known

    ServerSettings settings = m_session->settings();
    settings.contextTokens = 2048;
    m_session->setSettings(settings);
    QSignalSpy spy(&check, &ProjectionCrossCheck::changed);
    ASSERT_TRUE(waitUntil(
        spy, [&] { return check.runningProcessId() != 0; }, 30000));
    const qint64 pid = check.runningProcessId();
    settings.contextTokens = 8192;
    m_session->setSettings(settings); // kills the running measurement of -c 2048
    EXPECT_EQ(check.runningProcessId(), 0);
#ifdef Q_OS_UNIX
    errno = 0;
    EXPECT_EQ(::kill(static_cast<pid_t>(pid), 0), -1) << "process " << pid << " outlived its cancellation";
    EXPECT_EQ(errno, ESRCH);
#endif
    ASSERT_EQ(settle(check), CheckState::Done) << check.message().toStdString();
    ASSERT_EQ(check.rows().size(), 1u);
    EXPECT_FALSE(check.rows().front().differs);
}

TEST_F(ProjectionCrossCheckTest, WithoutTheToolTheCheckIsOffAndSaysWhy) {
    ProjectionCrossCheck check(m_session.get());
    check.setTool(QString());
    EXPECT_EQ(check.state(), CheckState::Off);
    EXPECT_TRUE(check.message().contains(QStringLiteral("llama-fit-params")));

    check.setTool(m_directory.filePath(QStringLiteral("no-such-llama-fit-params")));
    EXPECT_EQ(settle(check), CheckState::Failed);
    EXPECT_TRUE(check.message().contains(QStringLiteral("did not start"))) << check.message().toStdString();
}

TEST_F(ProjectionCrossCheckTest, APlanForAMachineWithAGpuIsNotComparedWithThisComputer) {
    Machine withGpu = cpuOnlyMachine();
    MachineGpu gpu;
    gpu.name = "Vulkan0";
    gpu.backend = Backend::Vulkan;
    MemoryPool vram;
    vram.name = "VRAM";
    vram.kind = PoolKind::DiscreteVram;
    vram.capacityBytes = 8ULL * 1024 * 1024 * 1024;
    withGpu.pools.push_back(vram);
    gpu.poolIndex = withGpu.pools.size() - 1;
    withGpu.gpus = {gpu};
    m_session->setMachine(withGpu);
    ProjectionCrossCheck check(m_session.get());
    check.setTool(ProjectionCrossCheck::toolBesideServer(m_server));
    EXPECT_EQ(settle(check), CheckState::Off);
    EXPECT_TRUE(check.message().contains(QStringLiteral("Vulkan0"))) << check.message().toStdString();
    EXPECT_TRUE(check.rows().empty());
}

} // namespace
} // namespace llamafit::test

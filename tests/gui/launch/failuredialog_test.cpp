// FailureDialog: a real KV-cache allocation failure (llama-server 0.7.0 under a 500 MiB
// address-space rlimit, set by util-linux prlimit in a wrapper script the panel runs as its
// binary) lists one button per fix, and clicking one puts that fix's settings into the
// session; other failures show their reason, evidence, full log and a one-line suggestion.

#include "ui/launch/failuredialog.h"

#include "core/system/serverlauncher.h"
#include "tests/gui/launch/launchfixture.h"
#include "ui/launch/fixtext.h"
#include "ui/launch/launchpanel.h"

#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QToolButton>

#include <filesystem>

namespace llamafit {
namespace {

constexpr const char* kPrlimit = "/usr/bin/prlimit";

class FailureDialogTest : public test::LaunchFixture {};

TEST_F(FailureDialogTest, AnAllocationFailureOffersFixesAndAClickAppliesOne) {
    if (!std::filesystem::exists(kPrlimit)) {
        GTEST_SKIP() << kPrlimit << " (util-linux) is needed to set RLIMIT_AS";
    }
    // The panel runs this script as its llama-server: 500 MiB of address space cannot hold
    // the 488 MiB KV cache of 2000128 cells next to the server's own mappings.
    const QString wrapper = m_directory.filePath(QStringLiteral("llama-server-limited"));
    QFile script(wrapper);
    ASSERT_TRUE(script.open(QIODevice::WriteOnly));
    // One malloc arena: each thread's own arena reserves 64 MiB of address space, and when the
    // HTTP threads made theirs first (under load) the KV cache's bookkeeping failed before the
    // KV buffer did (std::bad_alloc, no size to diagnose).
    script.write(QStringLiteral("#!/bin/sh\nexport MALLOC_ARENA_MAX=1\nexec %1 --as=%2 '%3' \"$@\"\n")
                     .arg(QString::fromLatin1(kPrlimit))
                     .arg(500ULL * 1024 * 1024)
                     .arg(m_server)
                     .toUtf8());
    script.close();
    ASSERT_TRUE(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

    ServerSettings settings = m_session->settings();
    settings.contextTokens = 2000000;
    m_session->setSettings(settings);
    ASSERT_TRUE(m_session->estimate().ok()) << m_session->estimate().error().message;
    LaunchPanel panel(m_session.get(), &m_process);
    panel.setServerBinary(wrapper);
    QSignalSpy states(&m_process, &ServerProcess::stateChanged);
    auto* launch = panel.findChild<QPushButton*>(QStringLiteral("launchButton"));
    ASSERT_NE(launch, nullptr);
    ASSERT_TRUE(launch->isEnabled()) << launch->toolTip().toStdString();
    launch->click();
    ASSERT_TRUE(waitForState(states, State::Failed, 60000)) << m_process.log();
    ASSERT_EQ(m_process.failure().reason, LaunchFailureReason::AllocationFailed) << m_process.log();

    auto* dialog = panel.findChild<FailureDialog*>(QStringLiteral("failureDialog"));
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->isVisible());
    auto* summary = dialog->findChild<QLabel*>(QStringLiteral("failureSummaryLabel"));
    ASSERT_NE(summary, nullptr);
    EXPECT_TRUE(summary->text().contains(QStringLiteral("the KV cache (488.31 MiB) did not fit in CPU")))
        << summary->text().toStdString();

    // The same diagnosis the CLI prints, from the same failure and budget.
    const auto budget = allocationBudgetBytes(m_process.failure());
    ASSERT_TRUE(budget.has_value());
    const auto expected = diagnoseAllocationFailure(m_session->sizingModel(), settings, m_session->gpus(),
                                                    *m_process.failure().allocation, *budget);
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    ASSERT_FALSE(expected->fixes.empty());
    for (const FailureFix& fix : expected->fixes) {
        const QString name = QString::fromUtf8(fixKindName(fix.kind));
        auto* button = dialog->findChild<QPushButton*>(QStringLiteral("fixButton_") + name);
        ASSERT_NE(button, nullptr) << name.toStdString();
        EXPECT_EQ(button->text(), fixChangeText(fix));
        EXPECT_EQ(button->toolTip(), fixSentenceText(fix, *expected));
    }
    const FailureFix& context = expected->fixes.front();
    EXPECT_EQ(context.kind, FixKind::Context);
    EXPECT_EQ(fixChangeText(context), QStringLiteral("context 2000000 → 2048"));
    EXPECT_TRUE(
        fixSentenceText(context, *expected).startsWith(QStringLiteral("Use a context of 2048 tokens")));
    EXPECT_EQ(dialog->findChild<QLabel*>(QStringLiteral("failureSuggestionLabel")), nullptr);

    QSignalSpy settingsChanged(m_session.get(), &SizingSession::settingsChanged);
    dialog->findChild<QPushButton*>(QStringLiteral("fixButton_context"))->click();
    EXPECT_EQ(settingsChanged.count(), 1);
    EXPECT_EQ(m_session->settings(), context.settings);
    EXPECT_EQ(m_session->settings().contextTokens, std::optional<std::uint32_t>(2048));
    EXPECT_FALSE(dialog->isVisible());
}

TEST_F(FailureDialogTest, ARejectedFlagShowsTheFlagTheEvidenceAndTheLog) {
    LaunchOutcome outcome;
    outcome.log = "error: invalid argument: --no-mmap\n";
    outcome.exitCode = 1;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    ASSERT_EQ(failure.reason, LaunchFailureReason::FlagRejected);
    FailureDialog dialog(failure, *m_session);
    EXPECT_EQ(dialog.objectName(), QStringLiteral("failureDialog"));
    auto* reason = dialog.findChild<QLabel*>(QStringLiteral("failureReasonLabel"));
    ASSERT_NE(reason, nullptr);
    EXPECT_TRUE(reason->text().startsWith(QStringLiteral("flag-rejected: "))) << reason->text().toStdString();
    auto* advice = dialog.findChild<QLabel*>(QStringLiteral("failureSuggestionLabel"));
    ASSERT_NE(advice, nullptr);
    EXPECT_TRUE(advice->text().contains(QStringLiteral("--no-mmap"))) << advice->text().toStdString();
    auto* evidence = dialog.findChild<QListWidget*>(QStringLiteral("failureEvidenceList"));
    ASSERT_NE(evidence, nullptr);
    ASSERT_EQ(evidence->count(), static_cast<int>(failure.evidence.size()));
    EXPECT_EQ(evidence->item(0)->text(), QString::fromStdString(failure.evidence.front()));
    EXPECT_FALSE(dialog.diagnosis().has_value());
    EXPECT_TRUE(
        dialog.findChildren<QPushButton*>(QRegularExpression(QStringLiteral("^fixButton_"))).isEmpty());

    auto* log = dialog.findChild<QPlainTextEdit*>(QStringLiteral("failureLogView"));
    auto* toggle = dialog.findChild<QToolButton*>(QStringLiteral("failureLogToggle"));
    ASSERT_NE(log, nullptr);
    ASSERT_NE(toggle, nullptr);
    EXPECT_TRUE(log->isReadOnly());
    EXPECT_EQ(log->toPlainText().toStdString(), outcome.log);
    EXPECT_TRUE(log->isHidden());
    toggle->click();
    EXPECT_FALSE(log->isHidden());
}

} // namespace
} // namespace llamafit

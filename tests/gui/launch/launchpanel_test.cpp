// LaunchPanel with the real llama-server 0.7.0 on the tiny model, driven by objectName: the
// version and the exact command line, Launch -> Ready -> Stop; a missing binary and a held port
// fail by name and open the failure dialog; a built-in card and refused settings disable
// Launch with the reason; a non-loopback host warns; each export equals the core's text.

#include "ui/launch/launchpanel.h"

#include "core/model/modelspec.h"
#include "core/server/exports.h"
#include "core/system/apikeyfile.h"
#include "tests/gui/launch/launchfixture.h"
#include "ui/launch/failuredialog.h"

#include <QCheckBox>
#include <QClipboard>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTcpServer>

namespace llamafit {
namespace {

using test::waitUntil;

class LaunchPanelTest : public test::LaunchFixture {
  protected:
    void SetUp() override {
        LaunchFixture::SetUp();
        if (HasFatalFailure() || IsSkipped()) {
            return;
        }
        m_panel = std::make_unique<LaunchPanel>(m_session.get(), &m_process);
        m_panel->setServerBinary(m_server);
    }
    void TearDown() override {
        LaunchFixture::TearDown();
        m_panel.reset();
    }

    template <typename T> T* child(const char* name) const {
        T* widget = m_panel->findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(widget, nullptr) << name;
        return widget;
    }
    QString text(const char* labelName) const { return child<QLabel>(labelName)->text(); }

    // Clicks Launch and waits for `target` (or Failed) through the process's stateChanged.
    bool launchAndWaitFor(State target, int timeoutMs) {
        QSignalSpy states(&m_process, &ServerProcess::stateChanged);
        child<QPushButton>("launchButton")->click();
        return waitForState(states, target, timeoutMs);
    }

    std::unique_ptr<LaunchPanel> m_panel;
};

TEST_F(LaunchPanelTest, LaunchesTheTinyModelShowsReadyAndStops) {
    QSignalSpy probed(m_panel->launcher(), &ServerLauncher::probed);
    ASSERT_TRUE(waitUntil(
        probed, [&] { return text("serverVersionLabel").contains(QStringLiteral("0.7.0")); }, 30000))
        << text("serverVersionLabel").toStdString();
    EXPECT_EQ(text("serverVersionLabel"), QStringLiteral("llama-server 0.7.0 (build 11669)"));
    // The estimate sizes for the build the launch will run.
    EXPECT_EQ(m_session->serverBuild(), std::optional<std::uint32_t>(11669));
    EXPECT_EQ(m_session->settings().llamaBuild, 11669u);

    const QString command = child<QLineEdit>("commandLineEdit")->text();
    EXPECT_TRUE(child<QLineEdit>("commandLineEdit")->isReadOnly());
    EXPECT_TRUE(command.startsWith(m_server + QStringLiteral(" -m "))) << command.toStdString();
    EXPECT_TRUE(command.contains(QStringLiteral(" -c 1024"))) << command.toStdString();
    EXPECT_TRUE(command.contains(QString::fromStdString(m_modelPath))) << command.toStdString();
    EXPECT_TRUE(command.contains(QStringLiteral("--host 127.0.0.1"))) << command.toStdString();
    EXPECT_TRUE(command.contains(QStringLiteral("--no-warmup"))) << command.toStdString();
    EXPECT_EQ(command, m_panel->commandLine());

    ASSERT_TRUE(child<QPushButton>("launchButton")->isEnabled())
        << child<QPushButton>("launchButton")->toolTip().toStdString();
    EXPECT_FALSE(child<QPushButton>("stopButton")->isEnabled());
    ASSERT_TRUE(launchAndWaitFor(State::Ready, 60000)) << m_process.log();
    EXPECT_TRUE(text("serverStateLabel").startsWith(QStringLiteral("Ready at ")))
        << text("serverStateLabel").toStdString();
    EXPECT_TRUE(text("serverStateLabel").contains(m_process.baseUrl().toString()));
    EXPECT_FALSE(child<QPushButton>("launchButton")->isEnabled());
    EXPECT_FALSE(child<QLineEdit>("hostEdit")->isEnabled());
    ASSERT_TRUE(child<QPushButton>("stopButton")->isEnabled());

    QSignalSpy states(&m_process, &ServerProcess::stateChanged);
    child<QPushButton>("stopButton")->click();
    ASSERT_TRUE(waitForState(states, State::Stopped, 15000));
    EXPECT_EQ(text("serverStateLabel"), QStringLiteral("Stopped"));
    EXPECT_TRUE(child<QPushButton>("launchButton")->isEnabled());
    EXPECT_EQ(m_panel->failureDialog(), nullptr);
}

TEST_F(LaunchPanelTest, TheCommandLineFollowsTheSessionAndIsCopied) {
    ServerSettings settings = m_session->settings();
    settings.contextTokens = 2048;
    m_session->setSettings(settings);
    EXPECT_TRUE(child<QLineEdit>("commandLineEdit")->text().contains(QStringLiteral(" -c 2048 ")));
    m_session->setExtraArgs({"--alias", "it's mine"});
    EXPECT_TRUE(
        child<QLineEdit>("commandLineEdit")->text().contains(QStringLiteral("--alias 'it'\\''s mine'")))
        << child<QLineEdit>("commandLineEdit")->text().toStdString();
    child<QSpinBox>("portSpin")->setValue(18123);
    EXPECT_TRUE(child<QLineEdit>("commandLineEdit")->text().contains(QStringLiteral("--port 18123")));
    child<QPushButton>("copyCommandButton")->click();
    EXPECT_EQ(QGuiApplication::clipboard()->text(), child<QLineEdit>("commandLineEdit")->text());
}

TEST_F(LaunchPanelTest, ANonLoopbackHostNeedsTheNetworkChoiceAndThenAnApiKey) {
    EXPECT_EQ(m_panel->host(), QStringLiteral("127.0.0.1"));
    EXPECT_TRUE(child<QLabel>("hostWarningLabel")->isHidden());
    ASSERT_TRUE(child<QPushButton>("launchButton")->isEnabled());

    child<QLineEdit>("hostEdit")->setText(QStringLiteral("0.0.0.0"));
    EXPECT_FALSE(child<QLabel>("hostWarningLabel")->isHidden());
    EXPECT_TRUE(text("hostWarningLabel").contains(QStringLiteral("network")));
    // Not chosen: nothing can start, and the reason says what to choose.
    EXPECT_FALSE(child<QPushButton>("launchButton")->isEnabled());
    EXPECT_TRUE(m_panel->launchBlocker().contains(QStringLiteral("0.0.0.0")))
        << m_panel->launchBlocker().toStdString();
    EXPECT_FALSE(child<QLineEdit>("commandLineEdit")->text().contains(QStringLiteral("--api-key")));

    child<QCheckBox>("exposeCheck")->setChecked(true);
    EXPECT_TRUE(child<QPushButton>("launchButton")->isEnabled()) << m_panel->launchBlocker().toStdString();
    const QString command = child<QLineEdit>("commandLineEdit")->text();
    EXPECT_TRUE(command.contains(QStringLiteral("--host 0.0.0.0"))) << command.toStdString();
    EXPECT_TRUE(command.contains(QStringLiteral("--api-key-file"))) << command.toStdString();
    EXPECT_TRUE(text("hostWarningLabel").contains(QStringLiteral("API key")));

    // Loopback spellings need no choice.
    child<QCheckBox>("exposeCheck")->setChecked(false);
    for (const QString& host :
         {QStringLiteral("localhost"), QStringLiteral("::1"), QStringLiteral("127.0.0.2")}) {
        m_panel->setHost(host);
        EXPECT_TRUE(child<QLabel>("hostWarningLabel")->isHidden()) << host.toStdString();
        EXPECT_TRUE(child<QPushButton>("launchButton")->isEnabled()) << host.toStdString();
    }
}

// A --host among the extra flags is the one llama-server listens on: it needs the choice too.
TEST_F(LaunchPanelTest, AHostAmongTheExtraFlagsIsGuardedLikeTheField) {
    m_session->setExtraArgs({"--host", "192.168.1.9"});
    EXPECT_FALSE(child<QPushButton>("launchButton")->isEnabled());
    EXPECT_TRUE(m_panel->launchBlocker().contains(QStringLiteral("192.168.1.9")));
    EXPECT_TRUE(text("hostWarningLabel").contains(QStringLiteral("192.168.1.9")));
}

// An export on a network address names the key file, never the key.
TEST_F(LaunchPanelTest, AnExportOnTheNetworkNamesTheKeyFileNotTheKey) {
    m_panel->setHost(QStringLiteral("0.0.0.0"));
    const QString path = m_directory.filePath(QStringLiteral("serve.sh"));
    const Result<bool> refused = m_panel->exportTo(ExportFormat::ShellScript, path);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, "launch.exposure-not-chosen");

    m_panel->setNetworkAccessChosen(true);
    ASSERT_TRUE(m_panel->exportTo(ExportFormat::ShellScript, path));
    QFile script(path);
    ASSERT_TRUE(script.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(script.readAll());
    const Result<std::string> key = ensureApiKeyFile(defaultApiKeyFilePath());
    ASSERT_TRUE(key) << key.error().message;
    EXPECT_TRUE(text.contains(QStringLiteral("--api-key-file"))) << text.toStdString();
    EXPECT_FALSE(text.contains(QString::fromStdString(*key)));
}

TEST_F(LaunchPanelTest, AMissingBinaryFailsByNameAndOpensTheDiagnosis) {
    const QString missing = m_directory.filePath(QStringLiteral("no-such-llama-server"));
    m_panel->setServerBinary(missing);
    EXPECT_EQ(m_panel->serverBinary(), missing);
    ASSERT_TRUE(launchAndWaitFor(State::Failed, 30000));
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::BinaryMissing);
    EXPECT_EQ(text("serverStateLabel"), QStringLiteral("Failed: binary-missing"));
    EXPECT_TRUE(text("serverVersionLabel").startsWith(QStringLiteral("not usable: ")))
        << text("serverVersionLabel").toStdString();

    auto* dialog = m_panel->findChild<FailureDialog*>(QStringLiteral("failureDialog"));
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->isVisible());
    EXPECT_FALSE(dialog->isModal());
    auto* reason = dialog->findChild<QLabel*>(QStringLiteral("failureReasonLabel"));
    ASSERT_NE(reason, nullptr);
    EXPECT_TRUE(reason->text().startsWith(QStringLiteral("binary-missing: ")))
        << reason->text().toStdString();
    EXPECT_TRUE(reason->text().contains(QString::fromStdString(m_process.failure().message)));
    auto* advice = dialog->findChild<QLabel*>(QStringLiteral("failureSuggestionLabel"));
    ASSERT_NE(advice, nullptr);
    EXPECT_TRUE(advice->text().contains(QStringLiteral("Browse"))) << advice->text().toStdString();
    EXPECT_TRUE(child<QPushButton>("launchButton")->isEnabled()); // try again with another binary
}

TEST_F(LaunchPanelTest, AHeldPortFailsAsPortInUse) {
    QTcpServer holder;
    ASSERT_TRUE(holder.listen(QHostAddress::LocalHost, 0));
    m_panel->setPort(holder.serverPort());
    EXPECT_EQ(m_panel->port(), holder.serverPort());
    ASSERT_TRUE(launchAndWaitFor(State::Failed, 60000)) << m_process.log();
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::PortInUse) << m_process.log();
    EXPECT_EQ(text("serverStateLabel"), QStringLiteral("Failed: port-in-use"));
    auto* dialog = m_panel->findChild<FailureDialog*>(QStringLiteral("failureDialog"));
    ASSERT_NE(dialog, nullptr);
    auto* advice = dialog->findChild<QLabel*>(QStringLiteral("failureSuggestionLabel"));
    ASSERT_NE(advice, nullptr);
    EXPECT_TRUE(advice->text().contains(QString::number(holder.serverPort())))
        << advice->text().toStdString();
    EXPECT_TRUE(advice->text().contains(QStringLiteral("any free port")));
}

TEST_F(LaunchPanelTest, AFlagTheBuildDoesNotKnowDisablesLaunchAndABadValueIsRefused) {
    QSignalSpy probed(m_panel->launcher(), &ServerLauncher::probed);
    ASSERT_TRUE(waitUntil(
        probed, [&] { return text("serverVersionLabel").contains(QStringLiteral("0.7.0")); }, 30000));
    m_session->setExtraArgs({"--no-such-flag"});
    auto* launch = child<QPushButton>("launchButton");
    EXPECT_FALSE(launch->isEnabled());
    EXPECT_TRUE(launch->toolTip().contains(QStringLiteral("--no-such-flag")))
        << launch->toolTip().toStdString();

    m_session->setExtraArgs({"-t", "many"}); // listed by --help; the value is refused by the argv check
    ASSERT_TRUE(launch->isEnabled()) << launch->toolTip().toStdString();
    QSignalSpy refused(m_panel->launcher(), &ServerLauncher::refused);
    launch->click();
    EXPECT_TRUE(text("serverStateLabel").startsWith(QStringLiteral("Checking")));
    ASSERT_TRUE(refused.wait(30000));
    EXPECT_TRUE(text("serverStateLabel").startsWith(QStringLiteral("Refused: ")))
        << text("serverStateLabel").toStdString();
    EXPECT_EQ(m_process.state(), State::Stopped);
    EXPECT_TRUE(launch->isEnabled());
}

TEST_F(LaunchPanelTest, ABuiltinCardCannotBeLaunched) {
    auto card = loadModel(std::string(defaultModelCardId()));
    ASSERT_TRUE(card.ok()) << card.error().message;
    m_session->setModel(std::move(*card));
    auto* launch = child<QPushButton>("launchButton");
    EXPECT_FALSE(launch->isEnabled());
    EXPECT_TRUE(launch->toolTip().contains(QStringLiteral("built-in card")))
        << launch->toolTip().toStdString();
    EXPECT_TRUE(text("serverStateLabel").contains(QStringLiteral("built-in card")));
    launch->click();
    EXPECT_FALSE(m_panel->launcher()->busy());
    EXPECT_EQ(m_process.state(), State::Stopped);
}

TEST_F(LaunchPanelTest, SettingsTheEstimateRefusesDisableLaunchWithTheReason) {
    const ServerSettings fitting = m_session->settings();
    ServerSettings settings = fitting;
    settings.cacheTypeV = GgmlType::Q8_0; // its 32-value blocks do not divide the tiny model's head size
    settings.flashAttention = FlashAttention::On;
    m_session->setSettings(settings);
    ASSERT_FALSE(m_session->estimate().ok());
    auto* launch = child<QPushButton>("launchButton");
    EXPECT_FALSE(launch->isEnabled());
    const QString reason = QString::fromStdString(m_session->estimate().error().message);
    EXPECT_TRUE(launch->toolTip().contains(reason)) << launch->toolTip().toStdString();
    EXPECT_TRUE(text("serverStateLabel").contains(reason));
    m_session->setSettings(fitting);
    EXPECT_TRUE(launch->isEnabled()) << launch->toolTip().toStdString();
}

TEST_F(LaunchPanelTest, EachExportIsTheCoresText) {
    m_panel->setPort(18111);
    const ExportSpec spec = m_panel->exportSpec();
    EXPECT_EQ(spec.serverBinary, m_server.toStdString());
    EXPECT_EQ(spec.modelPath, m_modelPath);
    EXPECT_EQ(spec.settings, m_session->settings());
    EXPECT_EQ(spec.port, std::optional<std::uint16_t>(18111));
    EXPECT_EQ(spec.extraArgs, m_session->extraArgs());
    const std::pair<ExportFormat, Result<std::string>> cases[] = {
        {ExportFormat::ShellScript, exportShellScript(spec)},
        {ExportFormat::BatchFile, exportBatchFile(spec)},
        {ExportFormat::PresetIni, exportPresetIni(spec)},
        {ExportFormat::LlamaSwap, exportLlamaSwapYaml(spec)},
    };
    for (const auto& [format, expected] : cases) {
        ASSERT_TRUE(expected.ok()) << expected.error().message;
        const QString path = m_directory.filePath(exportDefaultFileName(format));
        const Result<bool> written = m_panel->exportTo(format, path);
        ASSERT_TRUE(written.ok()) << written.error().message;
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << path.toStdString();
        EXPECT_EQ(file.readAll().toStdString(), *expected) << path.toStdString();
        EXPECT_NE(m_panel->findChild<QAction*>(exportActionObjectName(format)), nullptr);
    }
    EXPECT_TRUE(QFile::permissions(m_directory.filePath(exportDefaultFileName(ExportFormat::ShellScript))) &
                QFile::ExeOwner);
    const Result<bool> unwritable =
        m_panel->exportTo(ExportFormat::ShellScript, m_directory.filePath(QStringLiteral("no-dir/x.sh")));
    ASSERT_FALSE(unwritable.ok());
    EXPECT_EQ(unwritable.error().code, "export.write-failed");
}

} // namespace
} // namespace llamafit

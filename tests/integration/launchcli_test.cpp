// `llamafit-cli launch` end to end with the real llama-server: Ready, a status line, a clean
// stop on SIGINT (exit 0); a missing server binary exits 1 with the reason's name; an argv
// the server's own `<args> --version` check rejects exits 2 with its error, nothing started. Waits on
// the CLI's output and exit through QSignalSpy, never on sleeps.

#include "tests/integration/launchclifixture.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>

#include <csignal>

namespace llamafit {
namespace {

class LaunchCliTest : public test::LaunchCliFixture {
  protected:
    LaunchCliTest() : LaunchCliFixture("launch-tiny.gguf") {}
};

TEST_F(LaunchCliTest, ReadyStatusThenCleanStopOnSigint) {
    QSignalSpy finished(&m_cli, &QProcess::finished);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 m_server, QStringLiteral("-c"), QStringLiteral("512"), QStringLiteral("--no-warmup"),
                 QStringLiteral("-t"), QStringLiteral("1")});
    // The first status line once ready may come before the monitor's first /slots sample
    // (a loaded machine): wait for a line with the slots' throughput.
    ASSERT_TRUE(readUntil(" t/s", 60000).contains(" t/s"))
        << m_output.toStdString() << m_cli.readAllStandardError().toStdString();
    EXPECT_TRUE(m_output.contains("state: starting"));
    EXPECT_TRUE(m_output.contains("status: ready"));
    ASSERT_EQ(::kill(static_cast<pid_t>(m_cli.processId()), SIGINT), 0);
    if (finished.isEmpty()) {
        ASSERT_TRUE(finished.wait(15000));
    }
    m_output += m_cli.readAllStandardOutput();
    EXPECT_EQ(m_cli.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(m_cli.exitCode(), 0) << m_output.toStdString();
    EXPECT_TRUE(m_output.contains("state: stopping\nstate: stopped")) << m_output.toStdString();
}

// Two completions that each finish well inside one poll interval still show in the run totals
// (issue 15: the per-interval rates alone showed 0 t/s for such a run).
TEST_F(LaunchCliTest, ShortCompletionsCountInTheRunTotals) {
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 m_server, QStringLiteral("-c"), QStringLiteral("512"), QStringLiteral("--no-warmup"),
                 QStringLiteral("-t"), QStringLiteral("1")});
    ASSERT_TRUE(readUntil("run 0 tokens generated", 60000).contains("run 0 tokens generated"))
        << m_output.toStdString() << m_cli.readAllStandardError().toStdString();
    const QRegularExpressionMatch url = QRegularExpression(QStringLiteral("(http://127\\.0\\.0\\.1:[0-9]+)"))
                                            .match(QString::fromUtf8(m_output));
    ASSERT_TRUE(url.hasMatch()) << m_output.toStdString();

    QNetworkAccessManager network;
    for (int request = 0; request < 2; ++request) {
        QNetworkRequest post(QUrl(url.captured(1) + QStringLiteral("/completion")));
        post.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply* reply = network.post(post, R"({"prompt":"Hello","n_predict":48,"ignore_eos":true})");
        QSignalSpy done(reply, &QNetworkReply::finished);
        ASSERT_TRUE(reply->isFinished() || done.wait(60000));
        EXPECT_EQ(reply->error(), QNetworkReply::NoError) << reply->errorString().toStdString();
        reply->deleteLater();
    }
    EXPECT_TRUE(readUntil("run 96 tokens generated", 60000).contains("run 96 tokens generated"))
        << m_output.toStdString();
    ASSERT_EQ(::kill(static_cast<pid_t>(m_cli.processId()), SIGINT), 0);
    EXPECT_TRUE(
        readUntil("totals: run 96 tokens generated", 15000).contains("totals: run 96 tokens generated"))
        << m_output.toStdString();
}

TEST_F(LaunchCliTest, MissingServerExitsOneWithTheReason) {
    QSignalSpy finished(&m_cli, &QProcess::finished);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 QStringLiteral("/nonexistent/llamafit/llama-server")});
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_EQ(m_cli.exitCode(), 1);
    EXPECT_TRUE(m_cli.readAllStandardError().contains("binary-missing"));
}

// `-t abc` passes the CLI's parser (threads are passed through unmodelled) but 0.7.0 rejects
// it ("error while handling argument \"-t\": stoi"): the whole-argv check must catch it
// before ServerProcess starts anything.
TEST_F(LaunchCliTest, ArgvTheServerRejectsExitsTwoWithoutStarting) {
    QSignalSpy finished(&m_cli, &QProcess::finished);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 m_server, QStringLiteral("-t"), QStringLiteral("abc")});
    ASSERT_TRUE(finished.wait(60000));
    const QByteArray output = m_cli.readAllStandardOutput();
    const QByteArray error = m_cli.readAllStandardError();
    EXPECT_EQ(m_cli.exitCode(), 2) << output.toStdString() << error.toStdString();
    EXPECT_TRUE(error.contains("refused the arguments")) << error.toStdString();
    EXPECT_TRUE(error.contains("\"-t\"")) << error.toStdString();
    EXPECT_FALSE(output.contains("state: starting")) << output.toStdString();
}

} // namespace
} // namespace llamafit

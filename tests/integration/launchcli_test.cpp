// `llamafit-cli launch` end to end with the real llama-server: Ready, a status line, a clean
// stop on SIGINT (exit 0); a missing server binary exits 1 with the reason's name; an argv
// the server's own `<args> --version` check rejects exits 2 with its error, nothing started. Waits on
// the CLI's output and exit through QSignalSpy, never on sleeps.

#include "tests/integration/launchclifixture.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <csignal>

namespace llamafit {
namespace {

class LaunchCliTest : public test::LaunchCliFixture {
  protected:
    LaunchCliTest() : LaunchCliFixture("launch-tiny.gguf") {}

    // The server's address as the CLI printed it ("state: starting (…, http://127.0.0.1:N)").
    QString serverUrl() const {
        return QRegularExpression(QStringLiteral("(http://127\\.0\\.0\\.1:[0-9]+)"))
            .match(QString::fromUtf8(m_output))
            .captured(1);
    }

    // Posts one completion of `predictTokens` tokens to the server and waits for its answer.
    void complete(const QString& url, int predictTokens) {
        QNetworkRequest post(QUrl(url + QStringLiteral("/completion")));
        post.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply* reply =
            m_network.post(post, QByteArrayLiteral(R"({"prompt":"Hello","ignore_eos":true,"n_predict":)") +
                                     QByteArray::number(predictTokens) + '}');
        QSignalSpy done(reply, &QNetworkReply::finished);
        ASSERT_TRUE(reply->isFinished() || done.wait(120000));
        EXPECT_EQ(reply->error(), QNetworkReply::NoError) << reply->errorString().toStdString();
        reply->deleteLater();
    }

    QNetworkAccessManager m_network;
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
                 QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("--bandwidth-gbs"),
                 QStringLiteral("40")});
    ASSERT_TRUE(readUntil("run 0 tokens generated", 60000).contains("run 0 tokens generated"))
        << m_output.toStdString() << m_cli.readAllStandardError().toStdString();
    const QString url = serverUrl();
    ASSERT_FALSE(url.isEmpty()) << m_output.toStdString();
    for (int request = 0; request < 2; ++request) {
        complete(url, 48);
    }
    EXPECT_TRUE(readUntil("run 96 tokens generated", 60000).contains("run 96 tokens generated"))
        << m_output.toStdString();
    ASSERT_EQ(::kill(static_cast<pid_t>(m_cli.processId()), SIGINT), 0);
    EXPECT_TRUE(
        readUntil("totals: run 96 tokens generated", 15000).contains("totals: run 96 tokens generated"))
        << m_output.toStdString();
    // The decode rate next to the expected one and the effective bandwidth against the 40 GB/s
    // given (issue 15 item 3), in the status lines and the totals (whole once the CLI has ended).
    QSignalSpy exited(&m_cli, &QProcess::finished);
    ASSERT_TRUE(m_cli.state() == QProcess::NotRunning || exited.wait(15000));
    m_output += m_cli.readAllStandardOutput();
    const QString output = QString::fromUtf8(m_output);
    const QRegularExpression speed(QStringLiteral(
        "decode ([0-9.]+) t/s (now|run avg) \\(expected ([0-9.]+)\\) \\| eff\\. bw ([0-9.]+) of 40\\.0 GB/s "
        "\\(([0-9]+) %\\)"));
    const QRegularExpressionMatch status = speed.match(output);
    ASSERT_TRUE(status.hasMatch()) << m_output.toStdString();
    EXPECT_GT(status.captured(1).toDouble(), 0.0);
    EXPECT_GT(status.captured(3).toDouble(), 0.0);
    EXPECT_GT(status.captured(4).toDouble(), 0.0);
    const qsizetype totalsAt = output.indexOf(QStringLiteral("totals: run 96 tokens generated"));
    ASSERT_GE(totalsAt, 0);
    const QString totals = output.mid(totalsAt, output.indexOf(u'\n', totalsAt) - totalsAt);
    const QRegularExpressionMatch atExit = speed.match(totals);
    ASSERT_TRUE(atExit.hasMatch()) << totals.toStdString();
    EXPECT_EQ(atExit.captured(2), QStringLiteral("run avg"));
    EXPECT_GT(atExit.captured(1).toDouble(), 0.0);
}

// Learning from live runs (issue 15 item 2): with --machine, a run that generated at least 1024
// tokens is stored as the machine's live run when the server stops, and the next plan for that
// machine says its efficiency was learned from it. The store is under a scratch XDG_DATA_HOME.
TEST_F(LaunchCliTest, ALongEnoughRunIsLearnedFromForItsMachine) {
    QTemporaryDir dataHome;
    ASSERT_TRUE(dataHome.isValid());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), dataHome.path());
    m_cli.setProcessEnvironment(environment);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 m_server, QStringLiteral("-c"), QStringLiteral("2048"), QStringLiteral("--no-warmup"),
                 QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("--machine"),
                 QStringLiteral("cpu-only")});
    ASSERT_TRUE(readUntil("run 0 tokens generated", 60000).contains("run 0 tokens generated"))
        << m_output.toStdString() << m_cli.readAllStandardError().toStdString();
    const QString url = serverUrl();
    ASSERT_FALSE(url.isEmpty()) << m_output.toStdString();
    complete(url, 1100);
    ASSERT_TRUE(readUntil("run 1100 tokens generated", 60000).contains("run 1100 tokens generated"))
        << m_output.toStdString();
    ASSERT_EQ(::kill(static_cast<pid_t>(m_cli.processId()), SIGINT), 0);
    QSignalSpy exited(&m_cli, &QProcess::finished);
    ASSERT_TRUE(m_cli.state() == QProcess::NotRunning || exited.wait(15000));
    m_output += m_cli.readAllStandardOutput();
    const QString stored = dataHome.path() + QStringLiteral("/LlamaFit/benchmarks/cpu-only/live-runs.json");
    EXPECT_TRUE(m_output.contains("learning: stored this run (1100 tokens at ")) << m_output.toStdString();
    EXPECT_TRUE(m_output.contains(stored.toUtf8())) << m_output.toStdString();
    ASSERT_TRUE(QFile::exists(stored));

    QProcess plan;
    plan.setProcessEnvironment(environment);
    plan.start(QStringLiteral(LLAMAFIT_CLI_PATH),
               {QStringLiteral("plan"), QStringLiteral("--json"), QStringLiteral("-m"), m_model,
                QStringLiteral("-c"), QStringLiteral("2048"), QStringLiteral("--machine"),
                QStringLiteral("cpu-only")});
    ASSERT_TRUE(plan.waitForFinished(60000));
    const QByteArray planOutput = plan.readAllStandardOutput();
    ASSERT_EQ(plan.exitCode(), 0) << planOutput.toStdString() << plan.readAllStandardError().toStdString();
    const QJsonObject speed =
        QJsonDocument::fromJson(planOutput).object().value(QStringLiteral("speed")).toObject();
    EXPECT_EQ(speed.value(QStringLiteral("source")).toString(), QStringLiteral("live-runs"))
        << planOutput.toStdString();
    EXPECT_TRUE(
        speed.value(QStringLiteral("source_detail")).toString().contains(QStringLiteral("1 live run(s)")))
        << planOutput.toStdString();
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

// `--temp abc` passes the CLI's parser (sampling flags are passed through unchecked) but 0.7.0
// rejects it ("error while handling argument \"--temp\": stof"): the whole-argv check must catch
// it before ServerProcess starts anything.
TEST_F(LaunchCliTest, ArgvTheServerRejectsExitsTwoWithoutStarting) {
    QSignalSpy finished(&m_cli, &QProcess::finished);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 m_server, QStringLiteral("--temp"), QStringLiteral("abc")});
    ASSERT_TRUE(finished.wait(60000));
    const QByteArray output = m_cli.readAllStandardOutput();
    const QByteArray error = m_cli.readAllStandardError();
    EXPECT_EQ(m_cli.exitCode(), 2) << output.toStdString() << error.toStdString();
    EXPECT_TRUE(error.contains("refused the arguments")) << error.toStdString();
    EXPECT_TRUE(error.contains("\"--temp\"")) << error.toStdString();
    EXPECT_FALSE(output.contains("state: starting")) << output.toStdString();
}

// Network access (issue 13 item 8): a non-loopback --host without --expose is refused before
// anything starts; with --expose the server gets LlamaFit's key file, answers 401 without the
// key, and the monitor (which sends it) still reads /slots and /metrics. --expose is tried on
// loopback: tests never listen on another address.
TEST_F(LaunchCliTest, ANetworkHostNeedsExposeAndThenTheKeyGuardsTheServer) {
    QTemporaryDir dataHome;
    ASSERT_TRUE(dataHome.isValid());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), dataHome.path());
    m_cli.setProcessEnvironment(environment);

    QSignalSpy finished(&m_cli, &QProcess::finished);
    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 m_server, QStringLiteral("--host"), QStringLiteral("0.0.0.0")});
    ASSERT_TRUE(finished.wait(60000));
    const QByteArray refusal = m_cli.readAllStandardError();
    EXPECT_EQ(m_cli.exitCode(), 2) << refusal.toStdString();
    EXPECT_TRUE(refusal.contains("launch.exposure-not-chosen")) << refusal.toStdString();
    EXPECT_FALSE(m_cli.readAllStandardOutput().contains("state: starting"));
    const QString keyFile = dataHome.path() + QStringLiteral("/LlamaFit/llama-server-api-key");
    EXPECT_FALSE(QFile::exists(keyFile));

    m_cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                {QStringLiteral("launch"), QStringLiteral("-m"), m_model, QStringLiteral("--server"),
                 m_server, QStringLiteral("--expose"), QStringLiteral("-c"), QStringLiteral("512"),
                 QStringLiteral("--no-warmup"), QStringLiteral("-t"), QStringLiteral("1")});
    // " t/s" comes from /slots, which answers 401 to a monitor without the key.
    ASSERT_TRUE(readUntil(" t/s", 60000).contains(" t/s"))
        << m_output.toStdString() << m_cli.readAllStandardError().toStdString();
    ASSERT_TRUE(QFile::exists(keyFile));
    EXPECT_EQ(QFile::permissions(keyFile) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
              QFileDevice::Permissions());
    QFile file(keyFile);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray key = file.readLine().trimmed();
    EXPECT_FALSE(m_output.contains(key)) << "the key itself must not be printed";

    const QString url = serverUrl();
    ASSERT_FALSE(url.isEmpty()) << m_output.toStdString();
    auto statusOf = [&](const QByteArray& bearer) {
        QNetworkRequest request(QUrl(url + QStringLiteral("/metrics")));
        if (!bearer.isEmpty()) {
            request.setRawHeader("Authorization", "Bearer " + bearer);
        }
        QNetworkReply* reply = m_network.get(request);
        QSignalSpy done(reply, &QNetworkReply::finished);
        EXPECT_TRUE(reply->isFinished() || done.wait(30000));
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    };
    EXPECT_EQ(statusOf({}), 401);
    EXPECT_EQ(statusOf("wrong"), 401);
    EXPECT_EQ(statusOf(key), 200);
    ASSERT_EQ(::kill(static_cast<pid_t>(m_cli.processId()), SIGINT), 0);
    EXPECT_TRUE(readUntil("state: stopped", 15000).contains("state: stopped")) << m_output.toStdString();
}

} // namespace
} // namespace llamafit

// The launch on Windows, under Wine: LlamaFit's own ServerProcess starts the llama-server.exe
// cross-built from Debian's llama.cpp 0.7.0 source (the build the Linux rig runs), which loads
// the tiny real-weight model, becomes Ready, generates while ServerProbe -- the live charts'
// source -- samples it, and allocates exactly what the core predicts (the Linux integration
// tests hold the Linux server to the same prediction); then stops. Its failures are named as on
// Linux, plus the one Windows users meet most: the build's DLLs left behind. And no server
// outlives the app when the app is killed: the job object's kill-on-close, not the parent-death
// signal Linux has. Waits on signals, never on sleeps.

#include "core/flags/serverargs.h"
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "core/system/serverprobe.h"
#include "core/system/serverprocess.h"
#include "tests/support/modelfiles.h"
#include "tests/support/servercomparison.h"
#include "tests/support/serverprocesswait.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <windows.h>

#include <algorithm>

namespace llamafit {
namespace {

using State = ServerProcess::State;

class WindowsLaunchTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(QFile::exists(m_server))
            << m_server.toStdString() << " is missing: scripts/build-llama-server-windows.sh builds it";
        ASSERT_TRUE(m_scratch.isValid());
        m_model = m_scratch.filePath(QStringLiteral("tiny.gguf")).toStdString();
        const auto written = test::writeTinyModel(m_model);
        ASSERT_TRUE(written.ok()) << written.error().message;
    }

    void TearDown() override {
        if (m_process.state() != State::Stopped && m_process.state() != State::Failed) {
            QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
            m_process.stop();
            waitForState(spy, State::Stopped, 30000);
        }
    }

    // The flags of the launch, as the memory comparison reads them too.
    std::vector<std::string> memoryFlags() const { return {"-c", "512", "-np", "1", "-t", "1"}; }

    QStringList tinyArgs() const {
        QStringList args{QStringLiteral("-m"),          QString::fromStdString(m_model),
                         QStringLiteral("--no-warmup"), QStringLiteral("-lv"),
                         QStringLiteral("4"),           QStringLiteral("--metrics")};
        for (const std::string& flag : memoryFlags()) {
            args << QString::fromStdString(flag);
        }
        return args;
    }

    bool waitForState(QSignalSpy& spy, State target, int timeoutMs) {
        return test::waitForServerState(m_process, spy, target, timeoutMs);
    }

    // True once process `pid` has exited (or never existed), within `timeoutMs`.
    static bool processEnds(qint64 pid, DWORD timeoutMs) {
        HANDLE process = OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid));
        if (process == nullptr) {
            return true;
        }
        const bool ended = WaitForSingleObject(process, timeoutMs) == WAIT_OBJECT_0;
        if (!ended) { // do not leave it behind for the next test
            HANDLE killable = OpenProcess(PROCESS_TERMINATE, FALSE, static_cast<DWORD>(pid));
            if (killable != nullptr) {
                TerminateProcess(killable, 1);
                CloseHandle(killable);
            }
        }
        CloseHandle(process);
        return ended;
    }

    QString m_server = QStringLiteral(LLAMAFIT_WINDOWS_LLAMA_SERVER);
    QTemporaryDir m_scratch;
    std::string m_model;
    ServerProcess m_process;
};

TEST_F(WindowsLaunchTest, ReachesReadyGeneratesIsSampledAllocatesThePredictionAndStops) {
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, tinyArgs()));
    ASSERT_TRUE(waitForState(spy, State::Ready, 120000)) << m_process.failure().message << "\n"
                                                         << m_process.log();
    const qint64 pid = m_process.processId();
    ASSERT_GT(pid, 0);

    ServerProbe probe(m_process.baseUrl(), 64);
    probe.setInterval(std::chrono::milliseconds(100));
    probe.setProcessId(pid);
    QSignalSpy sampled(&probe, &ServerProbe::sampled);
    probe.start();

    // A completion while the probe samples: the tokens arrive, and the probe sees them decoded.
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QUrl url = m_process.baseUrl();
    url.setPath(QStringLiteral("/completion"));
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    // Exactly n_predict tokens, held to lowercase letters by a grammar: the tiny model's random
    // weights emit arbitrary bytes, and this MinGW build's answer parser refuses some of them
    // ("The model produced output that does not match the expected Content-only format", HTTP
    // 500) where the Linux build of the same source returns them.
    QNetworkReply* reply = network.post(
        request, QByteArrayLiteral(
                     R"({"prompt":"aaaa","n_predict":16,"ignore_eos":true,"grammar":"root ::= [a-z]+"})"));
    QSignalSpy done(reply, &QNetworkReply::finished);
    ASSERT_TRUE(done.wait(120000)) << "no answer to /completion";
    const QByteArray body = reply->readAll();
    ASSERT_EQ(reply->error(), QNetworkReply::NoError) << reply->errorString().toStdString() << "\n"
                                                      << body.toStdString();
    const QJsonObject answer = QJsonDocument::fromJson(body).object();
    reply->deleteLater();
    EXPECT_EQ(answer.value(QStringLiteral("tokens_predicted")).toInt(), 16);
    QDeadlineTimer deadline(30000);
    while ((probe.totalThroughputs().empty() || probe.processRss().empty() || !probe.props()) &&
           !deadline.hasExpired()) {
        sampled.wait(1000);
    }
    probe.stop();
    ASSERT_FALSE(probe.totalThroughputs().empty()) << "the live tokens/s saw no decode";
    ASSERT_FALSE(probe.processRss().empty()) << "the live memory chart got no sample";
    EXPECT_GT(probe.processRss().latest().value, 1024u * 1024u);
    ASSERT_TRUE(probe.props().has_value());
    EXPECT_EQ(probe.props()->totalSlots, 1u);

    // What llama-server.exe allocated is what the core predicts for these flags, buffer by buffer.
    const auto log = parseAllocationLog(m_process.log());
    ASSERT_TRUE(log.ok()) << log.error().message;
    const auto file = readGgufModel(m_model);
    ASSERT_TRUE(file.ok()) << file.error().message;
    const auto model = interpretModel(*file);
    ASSERT_TRUE(model.ok()) << model.error().message;
    const auto parsed = parseServerArgs(memoryFlags());
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const test::RunVerdict verdict = test::judgeServerRun(estimateMemory(*model, parsed->settings), *log);
    std::cout << "[ compare  ] llama-server.exe: " << verdict.summary << std::endl;
    EXPECT_TRUE(verdict.passed) << verdict.failure;

    m_process.stop();
    ASSERT_TRUE(waitForState(spy, State::Stopped, 30000)) << m_process.log();
    EXPECT_TRUE(processEnds(pid, 1000)) << "llama-server.exe still runs after stop()";
}

TEST_F(WindowsLaunchTest, HeldPortIsPortInUse) {
    QTcpServer holder;
    ASSERT_TRUE(holder.listen(QHostAddress::LocalHost, 0));
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, tinyArgs() << QStringLiteral("--port")
                                                     << QString::number(holder.serverPort())));
    ASSERT_TRUE(waitForState(spy, State::Failed, 120000)) << m_process.log();
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::PortInUse) << m_process.failure().message;
    EXPECT_EQ(m_process.failure().port, std::optional<std::uint32_t>(holder.serverPort()));
}

// llama-server.exe copied out of its release folder, without ggml*.dll and llama.dll.
TEST_F(WindowsLaunchTest, ABuildWithoutItsDllsIsLibraryMissing) {
    const QString lonely = m_scratch.filePath(QStringLiteral("llama-server.exe"));
    ASSERT_TRUE(QFile::copy(m_server, lonely));
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(lonely, tinyArgs()));
    ASSERT_TRUE(waitForState(spy, State::Failed, 60000)) << m_process.log();
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::LibraryMissing) << m_process.failure().message;
}

TEST_F(WindowsLaunchTest, AModelThatDoesNotLoadIsNamed) {
    const std::string broken = m_scratch.filePath(QStringLiteral("broken.gguf")).toStdString();
    QFile file(QString::fromStdString(broken));
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("GGUF but not really a model file");
    file.close();
    QStringList args = tinyArgs();
    args[1] = QString::fromStdString(broken);
    QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, args));
    ASSERT_TRUE(waitForState(spy, State::Failed, 60000)) << m_process.log();
    EXPECT_EQ(m_process.failure().reason, LaunchFailureReason::ModelInvalid) << m_process.failure().message;
}

// The app is ended by TerminateProcess (no destructor runs): the job object's kill-on-close
// must take the server with it.
TEST_F(WindowsLaunchTest, NoServerOutlivesAKilledApp) {
    QProcess helper;
    helper.setProgram(QStringLiteral(LLAMAFIT_ORPHAN_HELPER_PATH));
    helper.setArguments({m_server, QString::fromStdString(m_model)});
    QSignalSpy output(&helper, &QProcess::readyReadStandardOutput);
    QSignalSpy finished(&helper, &QProcess::finished);
    helper.start();
    const QByteArray printed = test::readFirstLine(helper, output, 120000);
    ASSERT_TRUE(printed.startsWith("pid "))
        << printed.toStdString() << helper.readAllStandardError().toStdString();
    const qint64 serverPid = printed.mid(4).trimmed().toLongLong();
    ASSERT_GT(serverPid, 0);
    if (finished.isEmpty()) {
        ASSERT_TRUE(finished.wait(30000));
    }
    EXPECT_EQ(helper.exitCode(), 9) << "the helper ended itself with TerminateProcess";
    EXPECT_TRUE(processEnds(serverPid, 30000))
        << "llama-server.exe " << serverPid << " outlived the killed app";
}

} // namespace
} // namespace llamafit

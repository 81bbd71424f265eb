// BenchmarkRun against the real llama-bench (CPU wrapper written by scripts/fetch-llama-server.sh,
// found like llama-server: $LLAMAFIT_LLAMA_BENCH, else <LLAMAFIT_LLAMA_SERVER_ROOT>/llama-bench)
// on the tiny real-weight model: a run with two depths finishes with its rows and progress, is
// stored and reloaded; cancel leaves no process behind; a refused setting fails with llama.cpp's
// own reason. Waits on signals (QSignalSpy) and the child's pidfd, never on sleeps; at most one
// llama-bench at a time.
#include "core/system/benchmarkrun.h"
#include "core/system/benchmarkstore.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace llamafit {
namespace {

using BenchState = BenchmarkRun::State;

class BenchmarkRunTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const Result<std::string> bench = test::findRigTool("LLAMAFIT_LLAMA_BENCH", "llama-bench");
        ASSERT_TRUE(bench.ok()) << bench.error().message;
        m_bench = QString::fromStdString(*bench);
        std::string error;
        const std::string& directory = test::scratchDirectory(error);
        ASSERT_FALSE(directory.empty()) << error;
        m_model = directory + "/bench-tiny.gguf";
        const auto written = test::writeTinyModel(m_model);
        ASSERT_TRUE(written.ok()) << written.error().message;
    }

    // Waits for one of the end states through the spy.
    bool waitForEnd(QSignalSpy& spy, int timeoutMs) {
        QDeadlineTimer deadline(timeoutMs);
        while (m_run.state() == BenchState::Running || m_run.state() == BenchState::Cancelling) {
            if (deadline.hasExpired() ||
                !spy.wait(static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1)))) {
                break;
            }
        }
        return m_run.state() != BenchState::Running && m_run.state() != BenchState::Cancelling;
    }

    BenchRequest smallRequest() const {
        BenchRequest request;
        request.modelPath = m_model;
        request.promptTokens = 32;
        request.generatedTokens = 8;
        request.depths = {0, 64};
        request.repetitions = 1;
        request.threads = 1;
        request.settings.flashAttention = FlashAttention::On;
        return request;
    }

    QString m_bench;
    std::string m_model;
    BenchmarkRun m_run;
};

TEST_F(BenchmarkRunTest, RunsTwoDepthsReportsProgressAndIsStoredAndReloaded) {
    QSignalSpy states(&m_run, &BenchmarkRun::stateChanged);
    QSignalSpy progressed(&m_run, &BenchmarkRun::progressed);
    ASSERT_TRUE(m_run.start(m_bench, smallRequest()));
    ASSERT_TRUE(waitForEnd(states, 120000));
    ASSERT_EQ(m_run.state(), BenchState::Finished) << m_run.error().code << " " << m_run.error().message;
    ASSERT_EQ(m_run.rows().size(), 4u);
    EXPECT_EQ(m_run.testCount(), 4u);
    EXPECT_GE(progressed.size(), 4);
    EXPECT_EQ(progressed.last().at(0).toUInt(), 4u);
    EXPECT_EQ(progressed.last().at(1).toUInt(), 4u);
    const BenchRow& deepGeneration = m_run.rows()[3];
    EXPECT_TRUE(deepGeneration.isGeneration());
    EXPECT_EQ(deepGeneration.depth, 64u);
    EXPECT_EQ(deepGeneration.flashAttention, 1);
    EXPECT_GT(deepGeneration.averageTps, 0);
    EXPECT_GT(deepGeneration.buildNumber, 0u);
    EXPECT_EQ(m_run.processId(), 0);

    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    BenchmarkStore store(folder.path());
    BenchRecord record;
    record.machineId = "detected";
    record.modelPath = m_model;
    record.modelFileBytes = 1234;
    record.buildNumber = deepGeneration.buildNumber;
    record.buildCommit = deepGeneration.buildCommit;
    record.rows = m_run.rows();
    record.predictions.assign(record.rows.size(), BenchRowPrediction{100, 60, std::nullopt, 0});
    for (const QString& arg : m_run.arguments()) {
        record.arguments.push_back(arg.toStdString());
    }
    Result<QString> path = store.append(record);
    ASSERT_TRUE(path.ok()) << path.error().message;
    ASSERT_TRUE(store.append(record).ok());
    Result<std::vector<BenchRecord>> reloaded = BenchmarkStore(folder.path()).load(record);
    ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
    ASSERT_EQ(reloaded->size(), 2u);
    EXPECT_EQ(reloaded->front(), record);
    EXPECT_EQ(store.loadMachine("detected").size(), 2u);
    EXPECT_TRUE(store.loadMachine("another-machine").empty());
}

TEST_F(BenchmarkRunTest, CancelStopsTheProcessAndLeavesNoneBehind) {
    BenchRequest request = smallRequest();
    request.generatedTokens = 200000; // minutes of generation: only a cancel ends it
    request.repetitions = 5;
    QSignalSpy states(&m_run, &BenchmarkRun::stateChanged);
    QSignalSpy progressed(&m_run, &BenchmarkRun::progressed);
    ASSERT_TRUE(m_run.start(m_bench, request));
    // llama-bench has loaded the model and started its first test.
    ASSERT_TRUE(progressed.wait(60000)) << m_run.errorOutput().toStdString();
    const auto pid = static_cast<pid_t>(m_run.processId());
    ASSERT_GT(pid, 0);
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    ASSERT_GE(pidfd, 0);
    m_run.cancel();
    EXPECT_EQ(m_run.state(), BenchState::Cancelling);
    ASSERT_TRUE(waitForEnd(states, 30000));
    EXPECT_EQ(m_run.state(), BenchState::Cancelled);
    EXPECT_TRUE(m_run.rows().empty());
    EXPECT_EQ(m_run.processId(), 0);
    // The child has exited (its pidfd is readable) and was reaped: the pid is gone.
    pollfd watch{pidfd, POLLIN, 0};
    EXPECT_EQ(::poll(&watch, 1, 0), 1);
    ::close(pidfd);
    EXPECT_EQ(::kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);
}

TEST_F(BenchmarkRunTest, RefusedSettingFailsWithLlamaCppsReason) {
    BenchRequest request = smallRequest();
    request.settings.cacheTypeK =
        GgmlType::Q8_0; // the tiny model's 16-wide heads do not divide into q8_0 blocks
    request.settings.cacheTypeV = GgmlType::Q8_0;
    QSignalSpy states(&m_run, &BenchmarkRun::stateChanged);
    ASSERT_TRUE(m_run.start(m_bench, request));
    ASSERT_TRUE(waitForEnd(states, 120000));
    EXPECT_EQ(m_run.state(), BenchState::Failed);
    EXPECT_EQ(m_run.error().code, "bench.exit");
    EXPECT_NE(m_run.error().message.find("failed to create context"), std::string::npos)
        << m_run.error().message;
}

TEST_F(BenchmarkRunTest, MissingProgramAndBadRequestFailNamed) {
    QSignalSpy states(&m_run, &BenchmarkRun::stateChanged);
    ASSERT_TRUE(m_run.start(QStringLiteral("/nonexistent/llama-bench"), smallRequest()));
    ASSERT_TRUE(waitForEnd(states, 30000));
    EXPECT_EQ(m_run.state(), BenchState::Failed);
    EXPECT_EQ(m_run.error().code, "bench.start-failed");
    BenchRequest empty;
    ASSERT_TRUE(m_run.start(m_bench, empty));
    EXPECT_EQ(m_run.state(), BenchState::Failed);
    EXPECT_EQ(m_run.error().code, "bench.bad-request");
}

} // namespace
} // namespace llamafit

namespace llamafit {
namespace {

// `llamafit-cli bench` end to end: the real llama-bench at two depths, rows with the speed
// model's figures, the run stored under XDG_DATA_HOME.
TEST_F(BenchmarkRunTest, CliBenchMeasuresPredictsAndStores) {
    QTemporaryDir data;
    ASSERT_TRUE(data.isValid());
    QProcess cli;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), data.path());
    environment.insert(QStringLiteral("LLAMAFIT_LLAMA_BENCH"), m_bench);
    cli.setProcessEnvironment(environment);
    cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
              {QStringLiteral("bench"), QStringLiteral("--json"), QStringLiteral("-m"),
               QString::fromStdString(m_model), QStringLiteral("--depths"), QStringLiteral("0,64"),
               QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--prompt-tokens"),
               QStringLiteral("32"), QStringLiteral("--gen-tokens"), QStringLiteral("8"),
               QStringLiteral("--repetitions"), QStringLiteral("1"), QStringLiteral("-fa"),
               QStringLiteral("on"), QStringLiteral("--machine"), QStringLiteral("cpu-only")});
    QSignalSpy finished(&cli, &QProcess::finished);
    ASSERT_TRUE(finished.wait(120000));
    const QByteArray out = cli.readAllStandardOutput();
    ASSERT_EQ(cli.exitCode(), 0) << out.toStdString() << cli.readAllStandardError().toStdString();
    const QJsonObject json = QJsonDocument::fromJson(out).object();
    const QJsonArray rows = json.value(QStringLiteral("rows")).toArray();
    ASSERT_EQ(rows.size(), 4);
    EXPECT_EQ(rows[3].toObject().value(QStringLiteral("test")).toString(), QStringLiteral("tg8 @ d64"));
    EXPECT_GT(rows[3].toObject().value(QStringLiteral("avg_ts")).toDouble(), 0);
    // cpu-only has a bandwidth figure: every tg row has a bound and an expected rate.
    EXPECT_GT(rows[3].toObject().value(QStringLiteral("decode_tps_bound")).toDouble(), 0);
    const QString stored = json.value(QStringLiteral("stored_path")).toString();
    EXPECT_TRUE(stored.startsWith(data.path() + QStringLiteral("/LlamaFit/benchmarks/cpu-only/")))
        << stored.toStdString();
    BenchmarkStore store(data.path() + QStringLiteral("/LlamaFit/benchmarks"));
    const std::vector<BenchRecord> records = store.loadMachine("cpu-only");
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records.front().rows.size(), 4u);
    EXPECT_EQ(records.front().predictions.size(), 4u);
}

} // namespace
} // namespace llamafit

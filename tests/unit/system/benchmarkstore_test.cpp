// BenchmarkStore's live runs (issue 15 item 2): appended per machine next to the llama-bench
// files, the oldest dropped past kMaxStoredLiveRuns, never read as a benchmark file, learned
// from together with the benchmark rows, and a file that does not parse is left untouched.
#include "core/system/benchmarkstore.h"

#include <QFile>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

LiveRunRecord liveRun(double decodeTps, double boundTps) {
    LiveRunRecord run;
    run.machineId = "test box";
    run.modelPath = "/models/m.gguf";
    run.backend = Backend::Cpu;
    run.generatedTokens = 2048;
    run.decodeTps = decodeTps;
    run.boundTps = boundTps;
    return run;
}

Machine testBox() {
    Machine machine;
    machine.id = "test box";
    return machine;
}

TEST(BenchmarkStoreLiveRuns, AreLearnedFromAndNeverReadAsBenchmarkFiles) {
    QTemporaryDir folder;
    BenchmarkStore store(folder.path());
    EXPECT_EQ(store.efficiencyFor(testBox(), false).source, SpeedSource::PublicDefaults);

    const Result<QString> path = store.appendLiveRun(liveRun(45, 100));
    ASSERT_TRUE(path.ok()) << path.error().message;
    EXPECT_EQ(*path, store.liveRunsPath("test box"));
    ASSERT_TRUE(store.appendLiveRun(liveRun(55, 100)).ok());

    std::vector<std::string> problems;
    EXPECT_TRUE(store.loadMachine("test box", &problems).empty());
    EXPECT_TRUE(problems.empty()) << problems.front();

    const SpeedEfficiency learned = store.efficiencyFor(testBox(), false);
    EXPECT_EQ(learned.source, SpeedSource::LiveRuns);
    EXPECT_DOUBLE_EQ(learned.decode, 0.5);
    EXPECT_EQ(learned.sampleCount, 2u);
    // Another dense/MoE kind learns nothing from them.
    EXPECT_EQ(store.efficiencyFor(testBox(), true).source, SpeedSource::PublicDefaults);
}

TEST(BenchmarkStoreLiveRuns, AreStoredUnderTheModelFileAsItIsOnDisk) {
    QTemporaryDir folder;
    const QString model = folder.filePath(QStringLiteral("m.gguf"));
    {
        QFile file(model);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(1234, 'x'));
    }
    const QDateTime started(QDate(2026, 12, 1), QTime(10, 0), Qt::UTC);
    const LiveRunRecord run =
        BenchmarkStore::liveRunIdentity("test box", Backend::Vulkan, model.toStdString(), true, started,
                                        defaultSpeedEfficiency(Backend::Vulkan, true));
    EXPECT_EQ(run.machineId, "test box");
    EXPECT_EQ(run.modelFileBytes, 1234u);
    EXPECT_EQ(run.backend, Backend::Vulkan);
    EXPECT_TRUE(run.moe);
    EXPECT_EQ(run.startedAt, "2026-12-01T10:00:00Z");
    EXPECT_FALSE(run.endedAt.empty());
    EXPECT_EQ(run.efficiencySource, "public-defaults");
    EXPECT_EQ(run.generatedTokens, 0u) << "the figures come from finishLiveRun";
}

TEST(BenchmarkStoreLiveRuns, KeepTheNewestOnes) {
    QTemporaryDir folder;
    BenchmarkStore store(folder.path());
    for (std::size_t i = 0; i < BenchmarkStore::kMaxStoredLiveRuns + 3; ++i) {
        ASSERT_TRUE(store.appendLiveRun(liveRun(static_cast<double>(i + 1), 1000)).ok());
    }
    const Result<std::vector<LiveRunRecord>> runs = store.loadLiveRuns("test box");
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    ASSERT_EQ(runs->size(), BenchmarkStore::kMaxStoredLiveRuns);
    EXPECT_DOUBLE_EQ(runs->front().decodeTps, 4.0);
    EXPECT_DOUBLE_EQ(runs->back().decodeTps, static_cast<double>(BenchmarkStore::kMaxStoredLiveRuns + 3));
}

TEST(BenchmarkStoreLiveRuns, AFileThatDoesNotParseIsNamedAndLeftUntouched) {
    QTemporaryDir folder;
    BenchmarkStore store(folder.path());
    ASSERT_TRUE(store.appendLiveRun(liveRun(45, 100)).ok());
    const QString path = store.liveRunsPath("test box");
    {
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("{\"format\": \"llamafit-live-runs\", \"runs\": [");
    }
    const Result<QString> appended = store.appendLiveRun(liveRun(55, 100));
    ASSERT_FALSE(appended.ok());
    EXPECT_EQ(appended.error().code, "bench.bad-record");
    EXPECT_NE(appended.error().message.find(path.toStdString()), std::string::npos)
        << appended.error().message;
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), QByteArray("{\"format\": \"llamafit-live-runs\", \"runs\": ["));
    EXPECT_EQ(store.efficiencyFor(testBox(), false).source, SpeedSource::PublicDefaults);
}

} // namespace
} // namespace llamafit

// ServerBinaryProbe against the real llama-server 0.7.0: --version/--help read into
// BuildCapabilities, the in-memory and on-disk caches, and `<args> --version` accepting the
// argv serverArgvForBuild spells and rejecting what 0.7.0 rejects (--no-mmap, -ctk q4_K).
// Waits on signals (QSignalSpy), never on sleeps.

#include "core/server/buildargv.h"
#include "core/system/serverbinaryprobe.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"

#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

class ServerBinaryProbeTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const auto server = test::findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = QString::fromStdString(*server);
    }

    BinaryProbeOutcome probeOnce(ServerBinaryProbe& probe) {
        QSignalSpy spy(&probe, &ServerBinaryProbe::probed);
        probe.probe(m_server);
        EXPECT_TRUE(spy.count() > 0 || spy.wait(30000));
        return spy.isEmpty() ? BinaryProbeOutcome{} : spy.front().front().value<BinaryProbeOutcome>();
    }

    ArgvCheckOutcome check(ServerBinaryProbe& probe, const QStringList& args) {
        QSignalSpy spy(&probe, &ServerBinaryProbe::argvChecked);
        probe.checkArgv(m_server, args);
        EXPECT_TRUE(spy.wait(30000));
        return spy.isEmpty() ? ArgvCheckOutcome{} : spy.front().front().value<ArgvCheckOutcome>();
    }

    QString m_server;
};

TEST_F(ServerBinaryProbeTest, ReadsTheInstalledBuildAndCachesIt) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString cacheFile = dir.filePath(QStringLiteral("binaries.json"));
    ServerBinaryProbe probe;
    probe.setCacheFile(cacheFile);
    const BinaryProbeOutcome first = probeOnce(probe);
    ASSERT_TRUE(first.capabilities.has_value()) << first.error.message;
    EXPECT_FALSE(first.fromCache);
    EXPECT_EQ(first.capabilities->version, "0.7.0");
    EXPECT_EQ(first.capabilities->defaultPort, 9931);
    EXPECT_TRUE(first.capabilities->hasLoadMode);
    EXPECT_TRUE(first.capabilities->flashAttnTakesValue);
    EXPECT_FALSE(first.capabilities->knows("--no-mmap"));

    const BinaryProbeOutcome second = probeOnce(probe);
    EXPECT_TRUE(second.fromCache);
    EXPECT_EQ(second.capabilities, first.capabilities);

    ServerBinaryProbe fromDisk; // a later run of the app
    fromDisk.setCacheFile(cacheFile);
    EXPECT_EQ(fromDisk.cached(m_server), first.capabilities);
}

TEST_F(ServerBinaryProbeTest, MissingBinaryIsNamed) {
    ServerBinaryProbe probe;
    QSignalSpy spy(&probe, &ServerBinaryProbe::probed);
    probe.probe(QStringLiteral("/nonexistent/llama-server"));
    ASSERT_TRUE(spy.wait(5000));
    const auto outcome = spy.front().front().value<BinaryProbeOutcome>();
    EXPECT_FALSE(outcome.capabilities.has_value());
    EXPECT_EQ(outcome.error.code, "probe.not-executable");
}

TEST_F(ServerBinaryProbeTest, ChecksTheWholeArgvWithoutLoading) {
    ServerBinaryProbe probe;
    const BinaryProbeOutcome probed = probeOnce(probe);
    ASSERT_TRUE(probed.capabilities.has_value()) << probed.error.message;
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.flashAttention = FlashAttention::On;
    settings.loadMode = LoadMode::None;
    settings.parallelSlots = 2;
    LaunchArgvOptions options;
    options.port = 18777;
    options.extraArgs = {"--no-warmup", "-t", "1"};
    // The model need not exist: --version acts before anything is loaded.
    auto argv = serverArgvForBuild(settings, "/nonexistent/model.gguf", *probed.capabilities, options);
    ASSERT_TRUE(argv.ok()) << argv.error().message;
    QStringList args;
    for (const std::string& word : argv->args) {
        args << QString::fromStdString(word);
    }
    const ArgvCheckOutcome good = check(probe, args);
    EXPECT_TRUE(good.accepted) << good.error.message << "\n" << good.output.toStdString();

    const ArgvCheckOutcome noMmap =
        check(probe, {QStringLiteral("-c"), QStringLiteral("512"), QStringLiteral("--no-mmap")});
    EXPECT_FALSE(noMmap.accepted);
    EXPECT_EQ(noMmap.error.code, "probe.argv-rejected");
    EXPECT_NE(noMmap.error.message.find("invalid argument: --no-mmap"), std::string::npos)
        << noMmap.error.message;

    const ArgvCheckOutcome badType = check(probe, {QStringLiteral("-ctk"), QStringLiteral("q4_K")});
    EXPECT_FALSE(badType.accepted);
    EXPECT_NE(badType.error.message.find("Unsupported cache type"), std::string::npos)
        << badType.error.message;
}

} // namespace
} // namespace llamafit

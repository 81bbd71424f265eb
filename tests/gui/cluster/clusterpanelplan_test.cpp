// ClusterPanel's plan lines: "Best split" writes the -ts the split solver finds and says which -c
// it and llama.cpp's default split fit; the network line gives what each token sends over the
// network with RPC hosts (hidden without); the per-host line reads a real llama-server log with two
// RPC hosts (recorded with llama.cpp b11669) through the path the watched server's log takes.
#include "core/common/units.h"
#include "ui/cluster/clusterpanel.h"

#include "core/flags/flagvalues.h"
#include "core/machine/machineprofile.h"
#include "core/server/rpchostusage.h"
#include "core/sizing/rpctraffic.h"
#include "core/sizing/splitsolver.h"
#include "ui/cluster/rpcservegroup.h"
#include "ui/sizingsession.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

struct PlanFixture {
    SizingSession session{*findBuiltinMachine(defaultMachineId())};
    ClusterPanel panel{&session};
    QLabel* label(const char* name) const { return panel.findChild<QLabel*>(QString::fromLatin1(name)); }
    QPushButton* button(const char* name) const {
        return panel.findChild<QPushButton*>(QString::fromLatin1(name));
    }
    void addTwoHosts() {
        panel.addHost(QStringLiteral("127.0.0.1:50052"), 24105);
        panel.addHost(QStringLiteral("127.0.0.1:50053"), 24105);
    }
};

QString splitText(const std::vector<double>& split) {
    return QString::fromStdString(tensorSplitText(split));
}

TEST(ClusterPanelPlan, BestSplitWritesTheSolversSplitAndNamesBothContexts) {
    PlanFixture fixture;
    QPushButton* best = fixture.button("bestSplitButton");
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(best->isEnabled(), fixture.session.gpus().size() >= 2);
    fixture.addTwoHosts();
    ASSERT_GE(fixture.session.gpus().size(), 3U);
    EXPECT_TRUE(best->isEnabled());
    const std::optional<std::uint32_t> contextBefore = fixture.session.settings().contextTokens;
    const SplitFit expected = bestTensorSplit(fixture.session.sizingModel(), fixture.session.settings(),
                                              fixture.session.gpus(), fixture.session.budget());
    ASSERT_TRUE(expected.fits);
    best->click();
    EXPECT_EQ(fixture.session.settings().tensorSplit, expected.tensorSplit);
    EXPECT_EQ(fixture.session.settings().contextTokens, contextBefore) << "-c is left alone";
    QLabel* label = fixture.label("bestSplitLabel");
    EXPECT_FALSE(label->isHidden());
    EXPECT_TRUE(label->text().startsWith(QStringLiteral("Best split -ts %1 fits -c %2; ")
                                             .arg(splitText(expected.tensorSplit))
                                             .arg(expected.contextTokens)))
        << label->text().toStdString();
    const QString defaultPart =
        expected.defaultSplitContextTokens
            ? QStringLiteral("default split fits -c %1").arg(*expected.defaultSplitContextTokens)
            : QStringLiteral("default split fits no context");
    EXPECT_TRUE(label->text().contains(defaultPart)) << label->text().toStdString();
    EXPECT_EQ(fixture.label("tensorSplitLabel")->text(),
              QStringLiteral("-ts ") + splitText(expected.tensorSplit));
    // Another cache type: the numbers no longer hold.
    ServerSettings settings = fixture.session.settings();
    settings.cacheTypeK = GgmlType::Q8_0;
    fixture.session.setSettings(settings);
    EXPECT_TRUE(label->isHidden());
    // Nor with other devices.
    best->click();
    EXPECT_FALSE(label->isHidden());
    fixture.panel.addHost(QStringLiteral("127.0.0.1:50054"), 1024);
    EXPECT_TRUE(label->isHidden());
}

TEST(ClusterPanelPlan, TheNetworkLineShowsWithRpcHostsOnly) {
    PlanFixture fixture;
    QLabel* network = fixture.label("networkLabel");
    ASSERT_NE(network, nullptr);
    EXPECT_TRUE(network->isHidden());
    fixture.addTwoHosts();
    EXPECT_FALSE(network->isHidden());
    const Result<RpcTraffic> traffic =
        rpcTrafficPerToken(fixture.session.model().info, fixture.session.settings(), fixture.session.gpus());
    ASSERT_TRUE(traffic.ok()) << traffic.error().message;
    ASSERT_GT(traffic->networkBytesPerToken, 0U);
    const QString expected =
        QStringLiteral("%1 KiB per token cross the network; +%2 ms at 1 Gbit/s, +%3 at 2.5, "
                       "+%4 at 10.")
            .arg(QString::number(static_cast<double>(traffic->networkBytesPerToken) / 1024.0, 'f', 1))
            .arg(QString::number(networkSecondsPerToken(*traffic, 1e9) * 1000.0, 'f', 2))
            .arg(QString::number(networkSecondsPerToken(*traffic, 2.5e9) * 1000.0, 'f', 2))
            .arg(QString::number(networkSecondsPerToken(*traffic, 10e9) * 1000.0, 'f', 2));
    EXPECT_TRUE(network->text().startsWith(expected)) << network->text().toStdString();
    fixture.session.setRpcHosts({});
    EXPECT_TRUE(network->isHidden());
}

TEST(ClusterPanelPlan, ARecordedServerLogGivesEachRpcHostsMemory) {
    PlanFixture fixture;
    QLabel* usage = fixture.label("hostUsageLabel");
    ASSERT_NE(usage, nullptr);
    EXPECT_TRUE(usage->isHidden());
    QFile file(QStringLiteral(LLAMAFIT_TEST_DATA_DIR "/recorded/rpc-b11669/qwen2_rpc2_c4096_np1.txt"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const std::string log = file.readAll().toStdString();
    const Result<AllocationLog> allocations = parseAllocationLog(log);
    ASSERT_TRUE(allocations.ok()) << allocations.error().message;
    const std::vector<RpcHostUsage> expected = rpcHostUsage(*allocations);
    ASSERT_EQ(expected.size(), 2U);

    fixture.panel.showServerLog(log, std::nullopt);
    EXPECT_FALSE(usage->isHidden());
    const QStringList lines = usage->text().split(u'\n');
    ASSERT_EQ(lines.size(), 3) << usage->text().toStdString();
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(
            lines[static_cast<qsizetype>(i) + 1],
            QStringLiteral("%1 (%2): %3 MiB allocated of 24105 MiB free")
                .arg(QString::fromStdString(expected[i].endpoint), QString::fromStdString(expected[i].device))
                .arg(QString::number(expected[i].allocatedMiB, 'f', 0)));
    }
    EXPECT_TRUE(lines[1].startsWith(QStringLiteral("127.0.0.1:50052 (RPC0): ")));
    EXPECT_TRUE(lines[2].startsWith(QStringLiteral("127.0.0.1:50053 (RPC1): ")));
    // With a prediction, its figure per host follows.
    fixture.addTwoHosts();
    ASSERT_TRUE(fixture.session.estimate().ok());
    fixture.panel.showServerLog(log, *fixture.session.estimate());
    EXPECT_TRUE(usage->text().contains(QStringLiteral("(predicted "))) << usage->text().toStdString();
    // The server gone: the line goes.
    fixture.panel.showServerLog({}, std::nullopt);
    EXPECT_TRUE(usage->isHidden());
}

TEST(ClusterPanelPlan, ServeThisMachineUnfoldsUnderItsToggle) {
    PlanFixture fixture;
    fixture.panel.show();
    auto* toggle = fixture.panel.findChild<QToolButton*>(QStringLiteral("serveToggle"));
    ASSERT_NE(toggle, nullptr);
    RpcServeGroup* group = fixture.panel.serveGroup();
    EXPECT_FALSE(group->isVisible());
    toggle->click();
    EXPECT_TRUE(group->isVisible());
    EXPECT_EQ(group->process()->state(), RpcServerProcess::State::Stopped);
    toggle->click();
    EXPECT_FALSE(group->isVisible());
}

} // namespace
} // namespace llamafit

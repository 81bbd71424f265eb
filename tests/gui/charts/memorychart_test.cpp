// MemoryChart: every bar is the sizing core's number for its pool and component, the limits are
// the pools' capacities (the BIOS split on the APU, with the driver's figure beside it), the
// verdicts show in text and colour, hover shows MiB and llama.cpp's rule, refused settings show
// the reason, and a hybrid model's RS bar stays flat while its KV grows with the context.
#include "ui/charts/memorychart.h"

#include "chartfixtures.h"
#include "core/common/units.h"
#include "core/machine/bandwidth.h"
#include "core/machine/rpccluster.h"
#include "core/system/benchmarkstore.h"
#include "ui/charts/ruletext.h"
#include "ui/chartstyle.h"

#include <QCheckBox>
#include <QLabel>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QToolTip>

#include <qcustomplot.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace llamafit {
namespace {

using testing::makeSession;
using testing::poolComponentBytes;
using testing::settingsWith;

constexpr double kToleranceMiB = 0.01;

const DeviceEstimate* deviceNamed(const MemoryEstimate& estimate, const std::string& name) {
    for (const DeviceEstimate& device : estimate.devices) {
        if (device.name == name) {
            return &device;
        }
    }
    return nullptr;
}

// Every drawn bar against the core: the terms of the pool, and for a device's pool the
// DeviceEstimate itself.
void expectBarsMatchCore(const SizingSession& session, const MemoryChart& chart, const std::string& context) {
    ASSERT_TRUE(session.estimate().ok()) << context << ": " << session.estimate().error().message;
    const PoolUsage& usage = *session.poolUsage();
    const Machine& machine = session.machine();
    int checked = 0;
    for (std::size_t pool = 0; pool < usage.pools.size(); ++pool) {
        if (!poolIsDrawn(usage.pools[pool])) {
            continue;
        }
        for (Component component : kChartComponentOrder) {
            const std::uint64_t expected = poolComponentBytes(usage, pool, component);
            EXPECT_NEAR(chart.barValueMiB(pool, component), toMiB(expected), kToleranceMiB)
                << context << ": pool " << pool << " " << componentName(component);
            checked += expected > 0 ? 1 : 0;
        }
    }
    EXPECT_GT(checked, 1) << context << ": no non-zero bar was checked";
    const MemoryEstimate& estimate = *session.estimate();
    for (const MachineGpu& gpu : machine.gpus) {
        const DeviceEstimate* device = deviceNamed(estimate, gpu.name);
        ASSERT_NE(device, nullptr) << context;
        for (Component component : kChartComponentOrder) {
            EXPECT_NEAR(chart.barValueMiB(gpu.poolIndex, component), toMiB(device->bytes.get(component)),
                        kToleranceMiB)
                << context << ": " << gpu.name << " " << componentName(component);
        }
    }
    const DeviceEstimate* host = deviceNamed(estimate, "CPU");
    ASSERT_NE(host, nullptr) << context;
    for (Component component : kChartComponentOrder) {
        EXPECT_NEAR(chart.barValueMiB(machine.hostPoolIndex, component), toMiB(host->bytes.get(component)),
                    kToleranceMiB)
            << context << ": host " << componentName(component);
    }
}

std::vector<ServerSettings> settingsToCheck() {
    return {settingsWith(4096),
            settingsWith(65536),
            settingsWith(65536, GgmlType::Q8_0, GgmlType::Q8_0),
            settingsWith(4096, GgmlType::F16, GgmlType::Q8_0, 2),
            settingsWith(65536, GgmlType::Q4_0, GgmlType::Q4_0, 4, 20),
            settingsWith(4096, GgmlType::F16, GgmlType::F16, 1, 0)};
}

class MemoryChartOnMachine : public ::testing::TestWithParam<const char*> {};

TEST_P(MemoryChartOnMachine, EveryBarIsTheCoresNumber) {
    auto session = makeSession(GetParam());
    MemoryChart chart(session.get());
    int index = 0;
    for (const ServerSettings& settings : settingsToCheck()) {
        session->setSettings(settings);
        expectBarsMatchCore(*session, chart,
                            std::string(GetParam()) + " settings #" + std::to_string(index++));
    }
}

TEST_P(MemoryChartOnMachine, EveryBarIsTheCoresNumberForADenseModel) {
    auto session = makeSession(GetParam(), "llama-3-8b-q4_k_m");
    MemoryChart chart(session.get());
    session->setSettings(settingsWith(8192, GgmlType::Q8_0, GgmlType::Q8_0, 2, 16));
    expectBarsMatchCore(*session, chart, GetParam());
}

INSTANTIATE_TEST_SUITE_P(BuiltinMachines, MemoryChartOnMachine,
                         ::testing::Values("gmktec-evo-x2-64gb-32-32", "rtx-4060-8gb"));

QColor outlineColorAbove(const QCustomPlot& plot, double key) {
    for (int i = 0; i < plot.itemCount(); ++i) {
        auto* rect = qobject_cast<QCPItemRect*>(plot.item(i));
        if (rect != nullptr && std::abs((rect->topLeft->key() + rect->bottomRight->key()) / 2 - key) < 1e-9) {
            return rect->pen().color();
        }
    }
    return {};
}

TEST(MemoryChart, AnOverflowingConfigDoesNotFitTheEightGigabyteCard) {
    auto session = makeSession("rtx-4060-8gb", "llama-3-8b-q4_k_m");
    MemoryChart chart(session.get());
    const std::size_t vram = session->machine().gpus.at(0).poolIndex;
    auto* label = chart.findChild<QLabel*>(QStringLiteral("memoryVerdictLabel"));
    ASSERT_NE(label, nullptr);

    session->setSettings(settingsWith(4096));
    ASSERT_EQ(session->poolUsage()->pools.at(vram).verdict, FitVerdict::Fits);
    EXPECT_TRUE(chart.verdictText(vram).startsWith(verdictLabel(FitVerdict::Fits) + QStringLiteral(" · ")))
        << chart.verdictText(vram).toStdString();
    EXPECT_TRUE(chart.verdictText(vram).endsWith(QStringLiteral("free")));
    EXPECT_EQ(outlineColorAbove(*chart.plot(), 1.0), verdictColor(FitVerdict::Fits));
    EXPECT_TRUE(label->text().contains(verdictLabel(FitVerdict::Fits)));

    // 64K of f16 KV for 32 layers is 8 GiB on its own.
    session->setSettings(settingsWith(65536));
    ASSERT_EQ(session->poolUsage()->pools.at(vram).verdict, FitVerdict::DoesNotFit);
    EXPECT_TRUE(chart.verdictText(vram).startsWith(verdictLabel(FitVerdict::DoesNotFit)))
        << chart.verdictText(vram).toStdString();
    EXPECT_TRUE(chart.verdictText(vram).endsWith(QStringLiteral("over")));
    EXPECT_EQ(outlineColorAbove(*chart.plot(), 1.0), verdictColor(FitVerdict::DoesNotFit));
    EXPECT_TRUE(label->text().contains(verdictLabel(FitVerdict::DoesNotFit))) << label->text().toStdString();
    EXPECT_NEAR(chart.limitMiB(vram), toMiB(session->machine().pools.at(vram).capacityBytes), kToleranceMiB);
}

TEST(MemoryChart, TheCarveOutLimitIsTheBiosSplitWithTheDriversFigureBeside) {
    auto session = makeSession("gmktec-evo-x2-64gb-32-32");
    MemoryChart chart(session.get());
    const Machine& machine = session->machine();
    ASSERT_TRUE(machine.biosSplit.has_value());
    const MemoryPool* carveOut = findPool(machine, PoolKind::ApuCarveout);
    ASSERT_NE(carveOut, nullptr);
    const std::size_t index = static_cast<std::size_t>(carveOut - machine.pools.data());
    EXPECT_NEAR(chart.limitMiB(index), toMiB(machine.biosSplit->carveOutBytes), kToleranceMiB);
    EXPECT_NEAR(chart.limitMiB(index), 32768.0, kToleranceMiB);
    ASSERT_TRUE(machine.observedBackendFreeBytes.has_value());
    EXPECT_NEAR(chart.backendFreeMiB(index), toMiB(*machine.observedBackendFreeBytes), kToleranceMiB);
    EXPECT_TRUE(std::isnan(chart.backendFreeMiB(machine.hostPoolIndex)));
    EXPECT_NEAR(chart.limitMiB(machine.hostPoolIndex),
                toMiB(machine.pools.at(machine.hostPoolIndex).capacityBytes), kToleranceMiB);
    auto* note = chart.findChild<QLabel*>(QStringLiteral("memoryBackendNoteLabel"));
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->text().contains(QStringLiteral("46,522 MiB"))) << note->text().toStdString();
    // The shared/GTT window holds no buffers on this machine: not drawn.
    const MemoryPool* shared = findPool(machine, PoolKind::ApuShared);
    ASSERT_NE(shared, nullptr);
    EXPECT_TRUE(std::isnan(chart.limitMiB(static_cast<std::size_t>(shared - machine.pools.data()))));
}

// The chart says which llama.cpp build it sized for: the probed llama-server's, whose generation
// the estimate then uses (core/sizing/llamabuild.h), else the reference build.
TEST(MemoryChart, SaysWhichLlamaCppBuildItSizedFor) {
    auto session = makeSession("gmktec-evo-x2-64gb-32-32");
    MemoryChart chart(session.get());
    auto* note = chart.findChild<QLabel*>(QStringLiteral("memorySizedForLabel"));
    ASSERT_NE(note, nullptr);
    EXPECT_EQ(note->text(), QStringLiteral("llama.cpp b11669"));
    EXPECT_TRUE(note->toolTip().startsWith(QStringLiteral("Sized for llama.cpp b11669:")))
        << note->toolTip().toStdString();
    EXPECT_EQ(session->settings().llamaBuild, kReferenceLlamaBuild);

    QSignalSpy settingsChanged(session.get(), &SizingSession::settingsChanged);
    session->setServerBuild(8183); // the first seed article's build
    EXPECT_EQ(settingsChanged.count(), 1);
    EXPECT_EQ(session->settings().llamaBuild, 8183u);
    ASSERT_TRUE(session->estimate().ok());
    EXPECT_EQ(note->text(), QStringLiteral("llama.cpp b8183"));
    EXPECT_TRUE(note->toolTip().startsWith(QStringLiteral("Sized for llama.cpp b8183:")))
        << note->toolTip().toStdString();
    // Settings set afterwards (a restored profile, a panel's edit) keep that build.
    session->setSettings(ServerSettings{});
    EXPECT_EQ(session->settings().llamaBuild, 8183u);

    session->setServerBuild(std::nullopt);
    EXPECT_EQ(session->settings().llamaBuild, kReferenceLlamaBuild);
    EXPECT_EQ(note->text(), QStringLiteral("llama.cpp b11669"));
}

// A Linux APU set up with a minimal carve-out and a large GTT: the GPU's buffers land in the
// shared window, which is then drawn, and are counted again in the system RAM it maps.
TEST(MemoryChart, TheSharedWindowIsDrawnWhenTheGpusBuffersLandThere) {
    ApuConfig config;
    config.id = "test-apu-gtt";
    config.name = "Test APU, 64 GB, 512 MiB carve-out";
    config.os = OsKind::Linux;
    config.gpuModel = "Radeon 8060S";
    config.physicalBytes = 64 * kGiB;
    config.carveOutBytes = 512 * kMiB;
    config.osUseBytes = 6 * kGiB;
    config.gpuUsesSharedMemory = true;
    auto session = makeSession("gmktec-evo-x2-64gb-32-32");
    session->setMachine(makeApuMachine(config));
    MemoryChart chart(session.get());
    session->setSettings(settingsWith(16384));
    const Machine& machine = session->machine();
    const MemoryPool* shared = findPool(machine, PoolKind::ApuShared);
    ASSERT_NE(shared, nullptr);
    const std::size_t sharedIndex = static_cast<std::size_t>(shared - machine.pools.data());
    ASSERT_EQ(machine.gpus.at(0).poolIndex, sharedIndex);
    EXPECT_NEAR(chart.limitMiB(sharedIndex), toMiB(shared->capacityBytes), kToleranceMiB);
    EXPECT_GT(chart.barValueMiB(sharedIndex, Component::Model), 1000.0);
    expectBarsMatchCore(*session, chart, "shared window");
    // The carve-out holds nothing of llama-server's but is still drawn, with its desktop share.
    const MemoryPool* carveOut = findPool(machine, PoolKind::ApuCarveout);
    ASSERT_NE(carveOut, nullptr);
    EXPECT_NEAR(chart.limitMiB(static_cast<std::size_t>(carveOut - machine.pools.data())), 512.0,
                kToleranceMiB);
}

// Issue 15 item 2: the segments a decoded token reads (weights, KV) give the decode bound and the
// expected rate with the efficiency's source, the same figures as the advice panel; other
// segments do not; the figures follow the bandwidth, and a machine without one says so.
TEST(MemoryChart, WeightsAndKvToolTipsGiveTheDecodeBoundAndTheExpectedRate) {
    auto session = makeSession("rtx-4060-8gb", "llama-3-8b-q4_k_m");
    MemoryChart chart(session.get());
    session->setSettings(settingsWith(4096, GgmlType::Q8_0, GgmlType::Q8_0));
    const std::size_t gpuPool = session->machine().gpus.at(0).poolIndex;
    const ModelInfo& model = session->model().info;
    const SpeedEfficiency efficiency = BenchmarkStore().efficiencyFor(session->machine(), model.isMoe());
    ASSERT_FALSE(efficiency.description.empty());

    const auto expectSpeedIn = [&](std::uint64_t bandwidth, const char* context) {
        const MemoryEstimate& estimate = *session->estimate();
        const double bound = estimateDecodeSpeed(model, estimate, bandwidth).tokensPerSecond;
        ASSERT_GT(bound, 0.0) << context;
        const QString figures = QStringLiteral("full %1-token slot: ≤ %2 t/s bound · ~%3 t/s expected")
                                    .arg(estimate.context.nCtxSeq)
                                    .arg(bound, 0, 'f', 1)
                                    .arg(bound * efficiency.decode, 0, 'f', 1);
        for (Component component : {Component::Model, Component::Kv}) {
            const QString tip = chart.toolTipAt(gpuPool, component);
            EXPECT_TRUE(tip.contains(figures))
                << context << ": " << tip.toStdString() << "\nwanted " << figures.toStdString();
            EXPECT_TRUE(tip.contains(QString::fromStdString(efficiency.description))) << tip.toStdString();
        }
        EXPECT_FALSE(chart.toolTipAt(gpuPool, Component::Compute).contains(QStringLiteral("t/s")));
    };
    const std::optional<std::uint64_t> machineBandwidth = session->machine().bandwidthBytesPerSecond;
    ASSERT_TRUE(machineBandwidth.has_value());
    expectSpeedIn(*machineBandwidth, "machine's figure");
    const QString before = chart.toolTipAt(gpuPool, Component::Kv);
    session->setBandwidthOverride(100'000'000'000ULL);
    EXPECT_NE(chart.toolTipAt(gpuPool, Component::Kv), before);
    expectSpeedIn(100'000'000'000ULL, "100 GB/s override");

    session->setBandwidthOverride(std::nullopt);
    Machine unknown = session->machine();
    unknown.id = "rtx-4060-no-bandwidth";
    unknown.bandwidthBytesPerSecond.reset();
    session->setMachine(unknown);
    EXPECT_TRUE(
        chart.toolTipAt(gpuPool, Component::Kv).contains(QStringLiteral("no memory bandwidth figure")))
        << chart.toolTipAt(gpuPool, Component::Kv).toStdString();
}

TEST(MemoryChart, TheToolTipGivesTheMiBAndTheRule) {
    auto session = makeSession("rtx-4060-8gb", "llama-3-8b-q4_k_m");
    MemoryChart chart(session.get());
    session->setSettings(settingsWith(4096, GgmlType::Q8_0, GgmlType::Q8_0));
    const MachineGpu& gpu = session->machine().gpus.at(0);
    const DeviceEstimate* device = deviceNamed(*session->estimate(), gpu.name);
    ASSERT_NE(device, nullptr);
    const QString tip = chart.toolTipAt(gpu.poolIndex, Component::Kv);
    EXPECT_TRUE(tip.contains(formatMiBText(device->bytes.kvBytes))) << tip.toStdString();
    int rules = 0;
    for (const BufferEstimate& buffer : device->buffers) {
        if (buffer.component == Component::Kv) {
            ASSERT_EQ(buffer.rule.id, SizeRuleId::KvCache);
            EXPECT_TRUE(tip.contains(ruleText(buffer.rule))) << tip.toStdString();
            ++rules;
        }
    }
    EXPECT_GT(rules, 0);
    EXPECT_FALSE(tip.contains(formatMiBText(device->bytes.modelBytes)));

    // A real mouse move over the middle of the KV segment shows that text.
    chart.resize(900, 600);
    chart.show();
    chart.plot()->replot();
    const PoolLoad& load = session->poolUsage()->pools.at(gpu.poolIndex);
    std::uint64_t below = 0;
    for (const PoolTerm& term : load.terms) {
        if (term.reservation || term.component == Component::Model) {
            below += term.bytes;
        }
    }
    const QPointF pixel(chart.plot()->xAxis->coordToPixel(1.0),
                        chart.plot()->yAxis->coordToPixel(toGiB(below + device->bytes.kvBytes / 2)));
    QMouseEvent move(QEvent::MouseMove, pixel, chart.plot()->mapToGlobal(pixel), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(chart.plot(), &move);
    EXPECT_EQ(QToolTip::text(), tip);
}

TEST(MemoryChart, EachRpcHostIsAColumnOfItsOwnUnderItsName) {
    auto session = makeSession("rtx-4060-8gb", "llama-3-8b-q4_k_m");
    MemoryChart chart(session.get());
    EXPECT_TRUE(chart.hostLabels().isEmpty()); // one machine: the plain row of bars
    EXPECT_DOUBLE_EQ(chart.barKey(0), 1.0);
    session->setRpcHosts(
        {RpcHost{"127.0.0.1:50052", 2048ULL << 20}, RpcHost{"127.0.0.1:50053", 3072ULL << 20}});
    session->setSettings(settingsWith(4096));
    expectBarsMatchCore(*session, chart, "two RPC hosts");
    EXPECT_EQ(chart.hostLabels(),
              (QStringList{QStringLiteral("this machine"), QStringLiteral("127.0.0.1:50052"),
                           QStringLiteral("127.0.0.1:50053")}));
    const std::vector<ClusterHost> hosts = clusterHosts(session->machine());
    ASSERT_EQ(hosts.size(), 3U);
    double lastLocal = 0.0;
    for (std::size_t pool : hosts[0].poolIndices) {
        lastLocal = std::max(lastLocal, std::isnan(chart.barKey(pool)) ? 0.0 : chart.barKey(pool));
    }
    const std::size_t firstRpcPool = hosts[1].poolIndices.at(0);
    const std::size_t secondRpcPool = hosts[2].poolIndices.at(0);
    // A gap between hosts wider than the one between two bars of a host.
    EXPECT_GT(chart.barKey(firstRpcPool) - lastLocal, 1.0);
    EXPECT_GT(chart.barKey(secondRpcPool) - chart.barKey(firstRpcPool), 1.0);
    EXPECT_DOUBLE_EQ(chart.limitMiB(firstRpcPool), 2048.0);
    EXPECT_DOUBLE_EQ(chart.limitMiB(secondRpcPool), 3072.0);

    // Hover finds the RPC host's bar at its own position.
    chart.resize(900, 600);
    chart.show();
    chart.plot()->replot();
    const double weightsMiB = chart.barValueMiB(secondRpcPool, Component::Model);
    ASSERT_GT(weightsMiB, 0.0);
    const QPointF pixel(chart.plot()->xAxis->coordToPixel(chart.barKey(secondRpcPool)),
                        chart.plot()->yAxis->coordToPixel(weightsMiB / 1024.0 / 2));
    QMouseEvent move(QEvent::MouseMove, pixel, chart.plot()->mapToGlobal(pixel), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(chart.plot(), &move);
    EXPECT_EQ(QToolTip::text(), chart.toolTipAt(secondRpcPool, Component::Model));

    session->setRpcHosts({});
    EXPECT_TRUE(chart.hostLabels().isEmpty());
    EXPECT_DOUBLE_EQ(chart.barKey(0), 1.0);
}

TEST(MemoryChart, RefusedSettingsShowTheReasonInsteadOfBars) {
    auto session = makeSession("gmktec-evo-x2-64gb-32-32");
    MemoryChart chart(session.get());
    const std::size_t gpuPool = session->machine().gpus.at(0).poolIndex;
    ASSERT_GT(chart.barValueMiB(gpuPool, Component::Model), 0.0);
    ServerSettings settings = settingsWith(4096, GgmlType::F16, GgmlType::Q8_0);
    settings.flashAttention = FlashAttention::Off;
    session->setSettings(settings);
    ASSERT_FALSE(session->estimate().ok());
    auto* message = chart.findChild<QLabel*>(QStringLiteral("memoryMessageLabel"));
    ASSERT_NE(message, nullptr);
    EXPECT_TRUE(message->text().contains(QString::fromStdString(session->estimate().error().message)));
    chart.show();
    EXPECT_TRUE(message->isVisible());
    EXPECT_FALSE(chart.plot()->isVisible());
    EXPECT_EQ(chart.barValueMiB(gpuPool, Component::Model), 0.0);

    session->setSettings(settingsWith(4096));
    EXPECT_TRUE(chart.plot()->isVisible());
    EXPECT_GT(chart.barValueMiB(gpuPool, Component::Model), 0.0);
}

// The seed's day: dragging the context from 4096 to 65536 on the hybrid Qwen3.5-35B-A3B grows
// the KV cache by hundreds of MiB while the recurrent state stays exactly where it was.
TEST(MemoryChart, AHybridModelsRsBarStaysFlatWhileKvGrows) {
    auto session = makeSession("gmktec-evo-x2-64gb-32-32");
    MemoryChart chart(session.get());
    const std::size_t gpuPool = session->machine().gpus.at(0).poolIndex;
    session->setSettings(settingsWith(4096));
    const double kvBefore = chart.barValueMiB(gpuPool, Component::Kv);
    const double rsBefore = chart.barValueMiB(gpuPool, Component::Rs);
    ASSERT_GT(rsBefore, 0.0) << "the default card should be a hybrid with an RS buffer";
    for (std::uint32_t context = 8192; context <= 65536; context *= 2) {
        session->setSettings(settingsWith(context));
        EXPECT_EQ(chart.barValueMiB(gpuPool, Component::Rs), rsBefore) << context;
    }
    const double kvAfter = chart.barValueMiB(gpuPool, Component::Kv);
    EXPECT_GE(kvAfter - kvBefore, 100.0);
    EXPECT_LT(kvAfter - kvBefore, 2048.0);
    EXPECT_NEAR(kvAfter, toMiB(poolComponentBytes(*session->poolUsage(), gpuPool, Component::Kv)),
                kToleranceMiB);
}

// Issue 11 item 7: at 4096 tokens the KV, RS and compute segments of a 26 GiB model are a few
// pixels: the breakdown names them in MiB without hovering, and "Without weights" draws them
// at their own scale (the weights and the reservation left out, no capacity line).
TEST(MemoryChart, TheBreakdownNamesEachComponentAndWithoutWeightsRescales) {
    auto session = makeSession("gmktec-evo-x2-64gb-32-32");
    MemoryChart chart(session.get());
    session->setSettings(settingsWith(4096));
    const std::size_t gpuPool = session->machine().gpus.at(0).poolIndex;
    auto* breakdown = chart.findChild<QLabel*>(QStringLiteral("memoryBreakdownLabel"));
    ASSERT_NE(breakdown, nullptr);
    const QString text = breakdown->text();
    for (Component component : {Component::Model, Component::Kv, Component::Rs, Component::Compute}) {
        EXPECT_TRUE(text.contains(componentLabel(component))) << text.toStdString();
    }
    const double kvMiB = toMiB(poolComponentBytes(*session->poolUsage(), gpuPool, Component::Kv));
    EXPECT_TRUE(text.contains(QStringLiteral("%1 MiB").arg(kvMiB, 0, 'f', 2))) << text.toStdString();

    const double fullRange = chart.plot()->yAxis->range().upper;
    ASSERT_FALSE(std::isnan(chart.limitMiB(gpuPool)));
    auto* check = chart.findChild<QCheckBox*>(QStringLiteral("withoutWeightsCheck"));
    ASSERT_NE(check, nullptr);
    check->setChecked(true);
    EXPECT_EQ(chart.barValueMiB(gpuPool, Component::Model), 0.0);
    EXPECT_NEAR(chart.barValueMiB(gpuPool, Component::Kv), kvMiB, kToleranceMiB);
    const double zoomedRange = chart.plot()->yAxis->range().upper;
    // The host pool keeps its run-time growth (prompt cache up to --cache-ram), so the scale
    // is that, not the few hundred MiB of the GPU pool alone.
    EXPECT_LT(zoomedRange * 2, fullRange) << "the non-weight part at its own scale";
    EXPECT_TRUE(std::isnan(chart.limitMiB(gpuPool)));
    EXPECT_EQ(breakdown->text(), text) << "the breakdown keeps the weights";

    check->setChecked(false);
    EXPECT_GT(chart.barValueMiB(gpuPool, Component::Model), 0.0);
    EXPECT_EQ(chart.plot()->yAxis->range().upper, fullRange);
}

} // namespace
} // namespace llamafit

// TensorSplitBar: one segment per device in llama.cpp's order, the free-memory default without
// -ts, and -ts written by dragging a handle, by the keyboard, and cleared by the panel's button.
#include "ui/cluster/tensorsplitbar.h"

#include "core/machine/machineprofile.h"
#include "ui/sizingsession.h"

#include <QTest>

#include <gtest/gtest.h>

#include <numeric>

namespace llamafit {
namespace {

std::vector<RpcHost> twoHosts() {
    return {RpcHost{"127.0.0.1:50052", 2048ULL << 20}, RpcHost{"127.0.0.1:50053", 3072ULL << 20}};
}

// A seed-machine session with two RPC hosts, and its split bar shown 600 pixels wide.
struct SplitFixture {
    SizingSession session{*findBuiltinMachine(defaultMachineId())};
    TensorSplitBar bar{&session};
    SplitFixture() {
        session.setRpcHosts(twoHosts());
        bar.resize(600, bar.sizeHint().height());
        bar.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&bar));
    }
    double total() const {
        const std::vector<double>& split = session.settings().tensorSplit;
        return std::accumulate(split.begin(), split.end(), 0.0);
    }
};

TEST(TensorSplitBar, ShowsTheRpcHostsFirstThenTheGpusSplitByFreeMemory) {
    SplitFixture fixture;
    const TensorSplitBar& bar = fixture.bar;
    ASSERT_EQ(bar.deviceCount(), 3);
    EXPECT_EQ(bar.handleCount(), 2);
    EXPECT_EQ(bar.deviceLabel(0), QStringLiteral("127.0.0.1:50052"));
    EXPECT_EQ(bar.deviceLabel(1), QStringLiteral("127.0.0.1:50053"));
    EXPECT_EQ(bar.deviceLabel(2), QString::fromStdString(fixture.session.gpus()[2].name));
    EXPECT_TRUE(bar.isDefaultSplit());
    const std::vector<GpuDevice>& gpus = fixture.session.gpus();
    const double memory =
        static_cast<double>(gpus[0].memoryBytes + gpus[1].memoryBytes + gpus[2].memoryBytes);
    for (int device = 0; device < 3; ++device) {
        EXPECT_NEAR(bar.sharePercent(device),
                    100.0 * static_cast<double>(gpus[static_cast<std::size_t>(device)].memoryBytes) / memory,
                    1e-9);
    }
    EXPECT_LT(bar.handleCentre(0).x(), bar.handleCentre(1).x());
}

TEST(TensorSplitBar, ReadsTheSplitAsLlamaCppDoesForTheseDevices) {
    // A -ts from a machine with more devices (a preset, a pasted command line): llama.cpp uses one
    // entry per device and ignores the rest; a zero share for every device here is the default.
    SplitFixture fixture;
    ServerSettings settings = fixture.session.settings();
    settings.tensorSplit = {1, 2, 1, 6};
    fixture.session.setSettings(settings);
    const TensorSplitBar& bar = fixture.bar;
    EXPECT_FALSE(bar.isDefaultSplit());
    EXPECT_DOUBLE_EQ(bar.sharePercent(0), 25.0);
    EXPECT_DOUBLE_EQ(bar.sharePercent(1), 50.0);
    EXPECT_DOUBLE_EQ(bar.sharePercent(2), 25.0);
    settings.tensorSplit = {0, 0, 0, 6};
    fixture.session.setSettings(settings);
    EXPECT_TRUE(bar.isDefaultSplit());
}

// Drags `handle` of `bar` to `fraction` of its width with the mouse.
void drag(TensorSplitBar& bar, int handle, double fraction) {
    const QPoint start = bar.handleCentre(handle);
    const QPoint to(static_cast<int>(bar.width() * fraction), start.y());
    QTest::mousePress(&bar, Qt::LeftButton, Qt::NoModifier, start);
    QTest::mouseMove(&bar, to);
    QTest::mouseRelease(&bar, Qt::LeftButton, Qt::NoModifier, to);
}

TEST(TensorSplitBar, DraggingAHandleWritesTheSplitInWholePercents) {
    SplitFixture fixture;
    TensorSplitBar& bar = fixture.bar;
    // By free memory the two small hosts are narrow (2 and 3 GiB beside the 32 GiB carve-out).
    const double firstEdgeBefore = std::round(bar.sharePercent(0));
    ASSERT_LT(bar.sharePercent(0) + bar.sharePercent(1), 40.0);
    drag(bar, 1, 0.5);
    const std::vector<double>& split = fixture.session.settings().tensorSplit;
    ASSERT_EQ(split.size(), 3U);
    EXPECT_FALSE(bar.isDefaultSplit());
    EXPECT_NEAR(split[0] + split[1], 50.0, 1.0); // a pixel is a sixth of a percent here
    EXPECT_EQ(split[1], std::round(split[1]));
    EXPECT_DOUBLE_EQ(split[0], firstEdgeBefore); // the other handle stays
    EXPECT_DOUBLE_EQ(fixture.total(), 100.0);
    drag(bar, 0, 0.25);
    EXPECT_NEAR(fixture.session.settings().tensorSplit.at(0), 25.0, 1.0);
    EXPECT_NEAR(bar.sharePercent(0), fixture.session.settings().tensorSplit.at(0), 1e-9);
    EXPECT_DOUBLE_EQ(fixture.total(), 100.0);
    ASSERT_TRUE(fixture.session.estimate().ok()) << fixture.session.estimate().error().message;
}

TEST(TensorSplitBar, AHandleStopsAtItsNeighbour) {
    SplitFixture fixture;
    drag(fixture.bar, 0, 0.99);
    const std::vector<double>& split = fixture.session.settings().tensorSplit;
    ASSERT_EQ(split.size(), 3U);
    EXPECT_EQ(split[1], 0.0); // the second host's segment is squeezed to nothing, not crossed
    EXPECT_GT(split[2], 0.0);
    EXPECT_DOUBLE_EQ(fixture.total(), 100.0);
}

TEST(TensorSplitBar, TheKeyboardMovesTheFocusedHandleAndTabGoesToTheNext) {
    SplitFixture fixture;
    TensorSplitBar& bar = fixture.bar;
    bar.setFocus();
    ASSERT_TRUE(QTest::qWaitFor([&] { return bar.hasFocus(); }));
    EXPECT_EQ(bar.focusedHandle(), 0);
    const double firstEdge = std::round(bar.sharePercent(0));
    QTest::keyClick(&bar, Qt::Key_Right);
    EXPECT_DOUBLE_EQ(fixture.session.settings().tensorSplit.at(0), firstEdge + 1);
    QTest::keyClick(&bar, Qt::Key_Tab);
    EXPECT_EQ(bar.focusedHandle(), 1);
    EXPECT_TRUE(bar.hasFocus());
    const double secondEdge = bar.sharePercent(0) + bar.sharePercent(1);
    QTest::keyClick(&bar, Qt::Key_Right, Qt::ShiftModifier);
    const std::vector<double>& split = fixture.session.settings().tensorSplit;
    EXPECT_DOUBLE_EQ(split.at(0) + split.at(1), secondEdge + 10);
    QTest::keyClick(&bar, Qt::Key_Left);
    EXPECT_DOUBLE_EQ(split.at(0) + split.at(1), secondEdge + 9);
    EXPECT_DOUBLE_EQ(split.at(0), firstEdge + 1); // the first handle did not move
    QTest::keyClick(&bar, Qt::Key_Backtab);
    EXPECT_EQ(bar.focusedHandle(), 0);
}

TEST(TensorSplitBar, ASingleDeviceHasNothingToSplit) {
    SizingSession session(*findBuiltinMachine("rtx-4060-8gb"));
    TensorSplitBar bar(&session);
    EXPECT_EQ(bar.deviceCount(), 1);
    EXPECT_EQ(bar.handleCount(), 0);
    EXPECT_FALSE(bar.isEnabled());
    session.setRpcHosts(twoHosts());
    EXPECT_EQ(bar.handleCount(), 2);
    EXPECT_TRUE(bar.isEnabled());
}

} // namespace
} // namespace llamafit

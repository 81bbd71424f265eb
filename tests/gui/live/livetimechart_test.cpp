// The live charts' data path: points go in as samples arrive, the sliding window drops the
// oldest ones, refresh() fits the axes to the window, and the reference lines come from the
// prediction and the machine's pools.
#include "tests/gui/live/systemrampool.h"
#include "ui/live/memorytimechart.h"
#include "ui/live/throughputchart.h"

#include "core/common/units.h"
#include "core/sizing/estimator.h"
#include "ui/sizingsession.h"

#include <gtest/gtest.h>

#include <qcustomplot.h>

namespace llamafit {
namespace {

DeviceSample sampleWithRss(std::uint64_t rssBytes) {
    DeviceSample sample;
    sample.processRssBytes = rssBytes;
    sample.hostAvailableBytes = 8ULL << 30;
    sample.deviceUsedBytes = {std::uint64_t{1} << 30, std::nullopt};
    return sample;
}

TEST(MemoryTimeChart, SlidingWindowDropsTheOldestPoints) {
    MemoryTimeChart chart;
    chart.setWindow(std::chrono::seconds(10));
    chart.setDeviceLabels({"GPU0: VRAM used", "GPU0: GTT used"});
    for (int second = 0; second < 30; ++second) {
        chart.addSample(second, sampleWithRss(static_cast<std::uint64_t>(second + 1) << 20));
    }
    chart.refresh();
    // Seconds 19..29: everything older than the newest point minus 10 s is gone.
    EXPECT_EQ(chart.rssPointCount(), 11);
    EXPECT_EQ(chart.hostAvailablePointCount(), 11);
    EXPECT_EQ(chart.devicePointCount(0), 11);
    EXPECT_EQ(chart.devicePointCount(1), 0); // no value, no point
    EXPECT_DOUBLE_EQ(chart.latestRssMiB(), 30.0);
    const QCPGraph* rss = chart.plot()->graph(0);
    EXPECT_DOUBLE_EQ(rss->data()->constBegin()->key, 19.0);
    EXPECT_DOUBLE_EQ(rss->data()->constBegin()->value, 20.0);
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().lower, 19.0);
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().upper, 29.0);
    EXPECT_EQ(chart.replotCount(), 1);
}

TEST(MemoryTimeChart, ShorterWindowTrimsAtOnceAndLongerKeepsEverything) {
    MemoryTimeChart chart;
    for (int second = 0; second < 20; ++second) {
        chart.addSample(second, sampleWithRss(1ULL << 30));
    }
    EXPECT_EQ(chart.rssPointCount(), 20); // the default 5-minute window holds all
    chart.setWindow(std::chrono::seconds(5));
    EXPECT_EQ(chart.rssPointCount(), 6); // 14..19
    chart.setWindow(std::chrono::seconds(300));
    chart.refresh();
    // A young run is not squeezed into a 5-minute axis: at least 30 s, growing with the data.
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().lower, 0.0);
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().upper, 30.0);
    chart.clearPoints();
    EXPECT_EQ(chart.rssPointCount(), 0);
    EXPECT_DOUBLE_EQ(chart.newestSeconds(), 0.0);
}

TEST(MemoryTimeChart, ReferenceLinesArePredictedTotalsAndPoolLimits) {
    Machine machine;
    machine.id = "cpu-test";
    machine.pools = {test::systemRamPool(16ULL << 30)};
    SizingSession session(machine);
    ASSERT_TRUE(session.estimate().ok()) << session.estimate().error().message;
    const std::vector<MemoryReference> references = memoryReferences(*session.estimate(), machine);
    ASSERT_EQ(references.size(), 2u);
    EXPECT_FALSE(references[0].limit);
    EXPECT_EQ(references[0].bytes, session.estimate()->devices.front().bytes.totalBytes());
    EXPECT_TRUE(references[1].limit);
    EXPECT_EQ(references[1].bytes, 16ULL << 30);
    EXPECT_EQ(memoryReferences(std::nullopt, machine).size(), 1u);

    MemoryTimeChart chart;
    chart.setReferences(references);
    EXPECT_EQ(chart.referenceLineCount(), 2);
    chart.addSample(1, sampleWithRss(8ULL << 30));
    chart.refresh();
    // The y axis reaches the highest line (the 16 GiB limit, within reach of 8 GiB of data).
    EXPECT_GE(chart.plot()->yAxis->range().upper, toMiB(16ULL << 30));
    EXPECT_FALSE(
        chart.plot()->graph(chart.plot()->graphCount() - 1)->name().contains(QStringLiteral("off scale")));
    chart.setReferences({});
    EXPECT_EQ(chart.referenceLineCount(), 0);
}

TEST(MemoryTimeChart, ALimitFarAboveTheDataStaysInTheLegendOffScale) {
    MemoryTimeChart chart;
    chart.setReferences({MemoryReference{QStringLiteral("predicted"), 900ULL << 20, false},
                         MemoryReference{QStringLiteral("System RAM limit"), 32ULL << 30, true}});
    DeviceSample sample = sampleWithRss(1ULL << 30);
    sample.hostAvailableBytes = 20ULL << 30; // context, not scale
    chart.addSample(1, sample);
    chart.refresh();
    const double upper = chart.plot()->yAxis->range().upper;
    EXPECT_GE(upper, 1024.0);            // the server's 1 GiB is on the chart
    EXPECT_LT(upper, toMiB(4ULL << 30)); // neither 20 GiB available nor the 32 GiB limit set the scale
    bool offScale = false;
    for (int i = 0; i < chart.plot()->graphCount(); ++i) {
        offScale = offScale ||
                   chart.plot()->graph(i)->name().startsWith(QStringLiteral("System RAM limit (off scale"));
    }
    EXPECT_TRUE(offScale);
}

TEST(ThroughputChart, TotalsPromptsAndSlotsWithASlidingWindow) {
    ThroughputChart chart;
    chart.setWindow(std::chrono::seconds(4));
    for (int second = 0; second < 10; ++second) {
        TotalThroughput total;
        total.decodedTokensPerSecond = 10.0 * second;
        if (second % 2 == 0) {
            total.finishedPromptTokensPerSecond = 100.0;
        }
        chart.addTotal(second, total);
        chart.addSlots(second, {SlotThroughput{0, 5.0 * second}, SlotThroughput{1, 1.0}});
    }
    chart.refresh();
    EXPECT_EQ(chart.totalPointCount(), 5);  // 5..9
    EXPECT_EQ(chart.promptPointCount(), 2); // 6, 8
    EXPECT_EQ(chart.slotSeriesCount(), 2);
    EXPECT_EQ(chart.slotPointCount(0), 5);
    EXPECT_EQ(chart.slotPointCount(7), 0);
    EXPECT_DOUBLE_EQ(chart.latestTotalTokensPerSecond(), 90.0);
    EXPECT_DOUBLE_EQ(chart.peakTotalTokensPerSecond(), 90.0);
    chart.reset();
    EXPECT_EQ(chart.totalPointCount(), 0);
    EXPECT_EQ(chart.slotSeriesCount(), 0);
    EXPECT_DOUBLE_EQ(chart.peakTotalTokensPerSecond(), 0.0);
}

} // namespace
} // namespace llamafit

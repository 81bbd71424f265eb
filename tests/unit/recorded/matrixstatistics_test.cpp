// MatrixStatistics (tests/support/matrixstatistics.h) counts what the comparison judged:
// exact buffers by the comparison's verdict, compute buffers within 2 % and 5 %, the worst
// of each, and the issue's bar.

#include "tests/support/matrixstatistics.h"

#include <gtest/gtest.h>

namespace llamafit::test {
namespace {

ComparedBuffer buffer(Component component, const std::string& type, double predicted, double logged,
                      bool within) {
    ComparedBuffer b;
    b.component = component;
    b.bufferType = type;
    b.host = type != "Vulkan0";
    b.predictedMiB = predicted;
    b.loggedMiB = logged;
    b.withinTolerance = within;
    return b;
}

TEST(MatrixStatisticsTest, CountsBuffersAndFindsTheWorst) {
    MatrixStatistics statistics;
    RunVerdict good;
    good.passed = true;
    good.buffers = {buffer(Component::Model, "Vulkan0", 464.07, 464.07, true),
                    buffer(Component::Compute, "Vulkan0", 69.0, 68.0, true),      // 1.5 %
                    buffer(Component::Compute, "Vulkan_Host", 20.8, 20.0, true)}; // 4 %
    RunVerdict bad;
    bad.failure = "differs from llama-server:\n  model Vulkan0: predicted 965.07 MiB\n  more";
    bad.buffers = {buffer(Component::Model, "Vulkan0", 965.07, 464.07, false),
                   buffer(Component::Compute, "Vulkan_Host", 8.0, 36.02, false)};
    statistics.add("a", good);
    statistics.add("b", bad);

    EXPECT_EQ(statistics.cases(), 2u);
    EXPECT_EQ(statistics.passed(), 1u);
    EXPECT_EQ(statistics.weights().total, 2u);
    EXPECT_EQ(statistics.weights().right, 1u);
    EXPECT_EQ(statistics.weights().worstCase, "b");
    EXPECT_EQ(statistics.deviceCompute().total, 1u);
    EXPECT_EQ(statistics.deviceCompute().tight, 1u);
    EXPECT_EQ(statistics.hostCompute().total, 2u);
    EXPECT_EQ(statistics.hostCompute().right, 1u);
    EXPECT_EQ(statistics.hostCompute().tight, 0u);
    EXPECT_EQ(statistics.hostCompute().worstCase, "b");
    EXPECT_FALSE(statistics.meetsIssueTolerances());
    const std::string report = statistics.report();
    EXPECT_NE(report.find("cases passed: 1 of 2"), std::string::npos) << report;
    EXPECT_NE(report.find("b: differs from llama-server: model Vulkan0: predicted 965.07 MiB"),
              std::string::npos)
        << report;
}

TEST(MatrixStatisticsTest, TheIssueBarNeedsTwoPercentInNinetyFivePercent) {
    MatrixStatistics statistics;
    for (int i = 0; i < 20; ++i) {
        RunVerdict verdict;
        verdict.passed = true;
        // One of twenty device compute buffers is 4 % off: 95 % within 2 %, the bar is met.
        verdict.buffers = {buffer(Component::Compute, "Vulkan0", i == 0 ? 104.0 : 100.0, 100.0, true)};
        statistics.add("case" + std::to_string(i), verdict);
    }
    EXPECT_TRUE(statistics.meetsIssueTolerances()) << statistics.report();
    RunVerdict another;
    another.passed = true;
    another.buffers = {buffer(Component::Compute, "Vulkan0", 103.0, 100.0, true)};
    statistics.add("case20", another);
    EXPECT_FALSE(statistics.meetsIssueTolerances()) << statistics.report(); // 19 of 21 < 95 %
}

} // namespace
} // namespace llamafit::test

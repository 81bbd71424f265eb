// placeBarsByHost: one machine keeps bars at 1, 2, 3; with RPC hosts each host is a column of its
// own, a wider gap before it, its span for the label under it. onTwoLines breaks long pool names
// at the space nearest the middle.
#include "ui/charts/hostcolumns.h"

#include "core/machine/machineprofile.h"
#include "core/machine/rpccluster.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(HostColumns, OneMachineKeepsThePlainRowOfBars) {
    const Machine machine = *findBuiltinMachine(defaultMachineId());
    const BarPlacement placement = placeBarsByHost({0, 1}, machine);
    EXPECT_EQ(placement.keys, (std::vector<double>{1.0, 2.0}));
    EXPECT_TRUE(placement.columns.empty());
}

TEST(HostColumns, EachRpcHostIsAColumnAfterAWiderGap) {
    const Machine local = *findBuiltinMachine(defaultMachineId());
    const Machine machine = withRpcHosts(
        local, {RpcHost{"127.0.0.1:50052", 2048ULL << 20}, RpcHost{"127.0.0.1:50053", 3072ULL << 20}});
    const std::size_t firstRpc = local.pools.size();
    // The APU's shared window (pool 2) is not drawn here: the local column is pools 0 and 1.
    const BarPlacement placement = placeBarsByHost({0, 1, firstRpc, firstRpc + 1}, machine);
    const double gap = 1.0 + kHostGap;
    EXPECT_EQ(placement.keys, (std::vector<double>{1.0, 2.0, 2.0 + gap, 2.0 + 2 * gap}));
    EXPECT_EQ(placement.columns,
              (std::vector<HostColumn>{{"", 1.0, 2.0},
                                       {"127.0.0.1:50052", 2.0 + gap, 2.0 + gap},
                                       {"127.0.0.1:50053", 2.0 + 2 * gap, 2.0 + 2 * gap}}));
}

TEST(HostColumns, LongNamesGoOnTwoLinesAtTheMiddleSpace) {
    EXPECT_EQ(onTwoLines(QStringLiteral("System RAM")), QStringLiteral("System RAM"));
    EXPECT_EQ(onTwoLines(QStringLiteral("BIOS carve-out (dedicated VRAM)")),
              QStringLiteral("BIOS carve-out\n(dedicated VRAM)"));
    EXPECT_EQ(onTwoLines(QStringLiteral("averyveryverylongnamewithoutspaces")),
              QStringLiteral("averyveryverylongnamewithoutspaces"));
}

} // namespace
} // namespace llamafit

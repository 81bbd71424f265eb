#pragma once
// HostColumns: where the memory chart puts the bar of each drawn pool when the plan spans several
// hosts -- this machine and its ggml-rpc-servers (--rpc, core/machine/rpccluster.h clusterHosts)
// -- so the chart reads as one column per host: the bars of a host one unit apart, a wider gap
// before the next host, and each host's span for the name under it. One machine alone keeps the
// plain row of bars at 1, 2, 3, ... Used by MemoryChart and its tests.
// Pure shaping: no widgets. Thread: any (GUI for the translated text). Units: the chart's x axis.

#include "core/machine/memorypools.h"

#include <QString>

#include <cstddef>
#include <string>
#include <vector>

namespace llamafit {

// The space between two hosts' bars, beyond the one between two bars of a host.
inline constexpr double kHostGap = 0.6;

struct HostColumn {
    std::string endpoint;  // "" for this machine
    double firstKey = 0.0; // the x of its first and last bar
    double lastKey = 0.0;
    bool operator==(const HostColumn&) const = default;
};

struct BarPlacement {
    std::vector<double> keys;        // one per drawn pool, increasing
    std::vector<HostColumn> columns; // in host order; empty for one machine
    bool operator==(const BarPlacement&) const = default;
};

// The bars of the pools `drawnPools` (indices into machine.pools, in drawing order).
BarPlacement placeBarsByHost(const std::vector<std::size_t>& drawnPools, const Machine& machine);

// A long pool name on two lines, broken at the space nearest its middle ("BIOS carve-out\n
// (dedicated VRAM)"): hosts side by side put bars closer than such a name is wide.
QString onTwoLines(const QString& name);

} // namespace llamafit

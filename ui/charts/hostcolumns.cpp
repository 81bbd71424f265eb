// Bars grouped per host; see hostcolumns.h.
#include "ui/charts/hostcolumns.h"

#include "core/machine/rpccluster.h"

#include <algorithm>
#include <cstdlib>

namespace llamafit {

BarPlacement placeBarsByHost(const std::vector<std::size_t>& drawnPools, const Machine& machine) {
    const std::vector<ClusterHost> hosts = clusterHosts(machine);
    const auto hostOf = [&hosts](std::size_t poolIndex) {
        for (std::size_t h = 0; h < hosts.size(); ++h) {
            const std::vector<std::size_t>& pools = hosts[h].poolIndices;
            if (std::find(pools.begin(), pools.end(), poolIndex) != pools.end()) {
                return h;
            }
        }
        return std::size_t{0};
    };
    const bool grouped = hosts.size() > 1;
    BarPlacement placement;
    double key = 0.0;
    std::size_t previousHost = 0;
    for (std::size_t i = 0; i < drawnPools.size(); ++i) {
        const std::size_t host = hostOf(drawnPools[i]);
        const bool newHost = i == 0 || host != previousHost;
        key += grouped && newHost && i > 0 ? 1.0 + kHostGap : 1.0;
        placement.keys.push_back(key);
        if (grouped && newHost) {
            placement.columns.push_back(HostColumn{hosts[host].endpoint, key, key});
        }
        if (grouped) {
            placement.columns.back().lastKey = key;
        }
        previousHost = host;
    }
    return placement;
}

QString onTwoLines(const QString& name) {
    constexpr qsizetype kLongName = 16;
    if (name.size() <= kLongName) {
        return name;
    }
    const qsizetype middle = name.size() / 2;
    qsizetype best = -1;
    for (qsizetype i = 0; i < name.size(); ++i) {
        if (name[i] == u' ' && (best < 0 || std::abs(i - middle) < std::abs(best - middle))) {
            best = i;
        }
    }
    QString wrapped = name;
    if (best >= 0) {
        wrapped[best] = u'\n';
    }
    return wrapped;
}

} // namespace llamafit

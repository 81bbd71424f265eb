// deviceSplitShares() and ignoredSplitEntries(); see tensorsplit.h.
#include "core/sizing/tensorsplit.h"

#include <algorithm>

namespace llamafit {

DeviceShares deviceSplitShares(const std::vector<double>& tensorSplit, const std::vector<GpuDevice>& gpus) {
    DeviceShares out;
    out.shares.assign(gpus.size(), 0.0);
    for (std::size_t i = 0; i < gpus.size() && i < tensorSplit.size(); ++i) {
        out.shares[i] = tensorSplit[i];
    }
    out.byFreeMemory =
        std::all_of(out.shares.begin(), out.shares.end(), [](double share) { return share == 0.0; });
    if (out.byFreeMemory) {
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            out.shares[i] = static_cast<double>(gpus[i].memoryBytes);
        }
    }
    return out;
}

std::size_t ignoredSplitEntries(const std::vector<double>& tensorSplit, std::size_t deviceCount) {
    return tensorSplit.size() > deviceCount ? tensorSplit.size() - deviceCount : 0;
}

} // namespace llamafit

#pragma once
// How llama.cpp reads -ts against the devices it has (src/llama-model.cpp load_tensors): one share
// per device, in device order. It copies the first n_devices entries and ignores the rest (a
// three-entry -ts on a one-GPU machine loads, measured on 0.7.0 b11669 with lavapipe); a missing
// entry is 0. When those shares are all zero, or -ts is unset, the split is by the free memory each
// device reports ("default split, by free memory"). The one home of that rule: the layer placement
// and the GUI's split bar both read it.

#include "core/sizing/serversettings.h"

#include <cstddef>
#include <vector>

namespace llamafit {

struct DeviceShares {
    std::vector<double> shares; // one per device, not normalised
    bool byFreeMemory = false;  // llama.cpp's default split: no share given for these devices
};

DeviceShares deviceSplitShares(const std::vector<double>& tensorSplit, const std::vector<GpuDevice>& gpus);

// How many -ts entries llama.cpp ignores for lack of devices.
std::size_t ignoredSplitEntries(const std::vector<double>& tensorSplit, std::size_t deviceCount);

} // namespace llamafit

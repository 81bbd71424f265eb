#pragma once
// What llama.cpp's backend will THINK is free on a machine's GPU, next to what LlamaFit plans
// against, with one sentence a user can read. On an APU the two differ a lot: ggml-vulkan sums
// every heap of an integrated GPU (the BIOS carve-out AND the shared/GTT heap), so the seed's
// EVO-X2 at a 32/32 split printed 46,522 MiB free against a 32 GiB carve-out.
// Used by `llamafit-cli plan` and the GUI's machine panel. Pure; bytes.

#include "core/machine/memorypools.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace llamafit {

struct BackendMemoryView {
    std::string device;                   // "Vulkan0"
    std::uint64_t reportedTotalBytes = 0; // the total llama.cpp will print for the device
    std::uint64_t reportedFreeBytes = 0;  // observed on this machine when known, else predicted
    bool freeObserved = false;
    std::uint64_t planLimitBytes = 0; // what LlamaFit plans against: the usable bytes of the GPU's pool
    std::string explanation;          // one sentence for people
    bool operator==(const BackendMemoryView&) const = default;
};

// For machine.gpus[gpuIndex]; a machine without GPUs gets the host's view (llama.cpp --fit
// then targets host memory).
BackendMemoryView backendMemoryView(const Machine& machine, std::size_t gpuIndex = 0);

// "46,522 MiB", "32 GiB", "13.4 GiB": the spellings the explanation uses.
std::string formatMiBGrouped(std::uint64_t bytes);
std::string formatGiBShort(std::uint64_t bytes);

} // namespace llamafit

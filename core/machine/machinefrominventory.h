#pragma once
// machineFromInventory(): the pool model (memorypools.h) of the machine device discovery found
// (deviceinfo.h). A discrete GPU becomes a VRAM pool; an integrated AMD/Intel GPU becomes the
// APU's carve-out + system RAM + shared/GTT pools; CPU-type Vulkan devices (lavapipe) are not
// GPUs. Every figure comes from a source; a missing one stays missing (a pool of unknown size,
// a note), and the answer is still usable for what is known. Pure: reads only the inventory.

#include "core/machine/deviceinfo.h"
#include "core/machine/memorypools.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

Machine machineFromInventory(const MachineInventory& inventory);

// Whether discovery found a GPU llama.cpp can offload to (not a CPU-type Vulkan device).
bool inventoryHasGpu(const MachineInventory& inventory);

// For each inventory.gpus[i], the index in machineFromInventory(inventory).gpus of the GPU made
// of it, or nullopt when llama.cpp will not use it (a CPU-type Vulkan device, or an integrated
// GPU next to a discrete one). `llamafit-cli devices` uses it to print each device's
// backendMemoryView() (backendreport.h).
std::vector<std::optional<std::size_t>> machineGpuIndices(const MachineInventory& inventory);

// Puts a host bandwidth MEASURED on this machine (core/system/bandwidthprobe) into `machine`
// where it is the right figure for the decode estimate: a machine without GPUs (the CPU reads
// the weights) and an APU with no known figure (the iGPU reads the same memory; the CPU's figure
// is a lower bound). A discrete GPU reads its own VRAM, so its machine is left as it is. Returns
// whether the figure was used.
bool applyMeasuredBandwidth(Machine& machine, std::uint64_t bytesPerSecond, const std::string& method);

} // namespace llamafit

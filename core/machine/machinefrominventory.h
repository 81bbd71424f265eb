#pragma once
// machineFromInventory(): the pool model (memorypools.h) of the machine device discovery found
// (deviceinfo.h). A discrete GPU becomes a VRAM pool; an integrated AMD/Intel GPU becomes the
// APU's carve-out + system RAM + shared/GTT pools; CPU-type Vulkan devices (lavapipe) are not
// GPUs. Every figure comes from a source; a missing one stays missing (a pool of unknown size,
// a note), and the answer is still usable for what is known. Pure: reads only the inventory.

#include "core/machine/deviceinfo.h"
#include "core/machine/memorypools.h"

namespace llamafit {

Machine machineFromInventory(const MachineInventory& inventory);

// Whether discovery found a GPU llama.cpp can offload to (not a CPU-type Vulkan device).
bool inventoryHasGpu(const MachineInventory& inventory);

} // namespace llamafit

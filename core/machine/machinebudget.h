#pragma once
// machineBudget(): the MemoryBudget the solvers (core/sizing/solvers.h) get for a Machine, so
// "largest context that fits", "best KV types" and "most GPU layers" answer for the pools the
// memory chart draws. Each GPU may use its pool's usable bytes (capacity minus what the OS and
// desktop hold) minus the safety margin; the host may use the system RAM left after the OS
// minus the margin. A pool of unknown size is unconstrained (0), as the chart leaves it
// unchecked. Used by the GUI's advice buttons and sweep chart. Pure; bytes.
//
// The budget covers llama-server's own buffers only: host-side run-time growth (prompt cache,
// context checkpoints, hostterms.h) is not subtracted, because the solvers size buffers at
// load; the chart shows that growth separately and calls a configuration "tight" when it could
// reach the limit.

#include "core/machine/memorypools.h"
#include "core/sizing/solvers.h"

#include <cstdint>

namespace llamafit {

MemoryBudget machineBudget(const Machine& machine, std::uint64_t marginBytes);

} // namespace llamafit

#pragma once
// The host's RAM as a machine's memory pool, of the given capacity: the live views' tests draw
// against it.

#include "core/machine/memorypools.h"

#include <cstdint>

namespace llamafit::test {

inline MemoryPool systemRamPool(std::uint64_t capacityBytes) {
    MemoryPool pool;
    pool.name = "System RAM";
    pool.kind = PoolKind::HostRam;
    pool.capacityBytes = capacityBytes;
    return pool;
}

} // namespace llamafit::test

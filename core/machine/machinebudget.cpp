// Machine pools -> solver budget; see machinebudget.h.
#include "core/machine/machinebudget.h"

namespace llamafit {

namespace {

// Usable bytes of a pool less the margin; 0 (= unconstrained) for a pool of unknown size. A
// known pool smaller than the margin still constrains: 1 byte, so nothing "fits" in it.
std::uint64_t poolBudget(const MemoryPool& pool, std::uint64_t marginBytes) {
    if (!pool.capacityKnown) {
        return 0;
    }
    const std::uint64_t usable = pool.usableBytes();
    return usable > marginBytes ? usable - marginBytes : 1;
}

} // namespace

MemoryBudget machineBudget(const Machine& machine, std::uint64_t marginBytes) {
    MemoryBudget budget;
    if (machine.hostPoolIndex < machine.pools.size()) {
        budget.hostBytes = poolBudget(machine.pools[machine.hostPoolIndex], marginBytes);
    }
    for (const MachineGpu& gpu : machine.gpus) {
        budget.gpuBytes.push_back(
            gpu.poolIndex < machine.pools.size() ? poolBudget(machine.pools[gpu.poolIndex], marginBytes) : 0);
    }
    return budget;
}

} // namespace llamafit

// machineBudget: pools' usable bytes less the margin, per GPU and for the host.
#include "core/common/units.h"
#include "core/machine/machinebudget.h"

#include "core/machine/machineprofile.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(MachineBudget, ApuCarveOutAndSystemRamLessTheMargin) {
    const Machine machine = *findBuiltinMachine(defaultMachineId());
    const MemoryBudget budget = machineBudget(machine, 1024 * kMiB);
    ASSERT_EQ(budget.gpuBytes.size(), machine.gpus.size());
    const MemoryPool& gpuPool = machine.pools[machine.gpus[0].poolIndex];
    EXPECT_EQ(budget.gpuBytes[0], gpuPool.usableBytes() - 1024 * kMiB);
    EXPECT_EQ(budget.hostBytes, machine.pools[machine.hostPoolIndex].usableBytes() - 1024 * kMiB);
}

TEST(MachineBudget, UnknownPoolIsUnconstrainedAndATinyOneFitsNothing) {
    Machine machine;
    machine.pools.push_back(MemoryPool{"RAM", PoolKind::HostRam, 0, false, 0, std::nullopt});
    machine.pools.push_back(MemoryPool{"VRAM", PoolKind::DiscreteVram, 512 * kMiB, true, 0, std::nullopt});
    machine.hostPoolIndex = 0;
    machine.gpus.push_back(MachineGpu{"CUDA0", "card", Backend::Cuda, false, 1});
    const MemoryBudget budget = machineBudget(machine, 1024 * kMiB);
    EXPECT_EQ(budget.hostBytes, 0U);
    ASSERT_EQ(budget.gpuBytes.size(), 1U);
    EXPECT_EQ(budget.gpuBytes[0], 1U);
}

} // namespace
} // namespace llamafit

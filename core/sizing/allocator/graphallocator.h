#pragma once
// planComputeBuffers: ggml's graph allocator (ggml/src/ggml-alloc.c ggml_gallocr_reserve_n) over
// the graph the scheduler hands it (scheduler::AllocationPlan): graph inputs first, then each node
// after its sources, in place over a source that dies there when the op allows it, each tensor
// freed after its last reader; one dynamic allocator per buffer type. Gives the compute buffer
// each backend reserves, as llama.cpp logs it ("Vulkan0 compute buffer size = ..."); a backend
// that shares its buffer type with an earlier one reports 0 there (ggml_gallocr_get_buffer_size).
// Pure functions; bytes.

#include "core/sizing/allocator/cellsteps.h"
#include "core/sizing/scheduler/graphsplit.h"
#include "core/sizing/scheduler/schedulerbackend.h"

#include <array>
#include <cstdint>
#include <vector>

namespace llamafit::allocator {

// `bufferTypes[b]` is backend b's compute buffer type (sched->bufts).
std::vector<std::uint64_t> planComputeBuffers(const scheduler::AllocationPlan& plan,
                                              const std::vector<scheduler::BufferType>& bufferTypes);

// A scheduled graph as the KV cache grows (cellsteps.h): the plan at the anchor, and each tensor's
// bytes in each compute buffer type and its shape as affine functions of the steps from it, read
// from the same graph scheduled one step (256 cells) later with the same tensors, nodes, leafs
// and backends (the caller checks). Without `nextStep` nothing grows. Names are dropped: the
// allocator does not read them, and a plan cache holds many of these.
struct GrowingPlan {
    scheduler::AllocationPlan plan;
    std::vector<std::vector<AffineBytes>> allocBytes; // [buffer type][tensor], from the anchor
    std::vector<std::array<std::int64_t, 4>> neSlope; // per tensor, elements per step
    std::vector<std::array<std::int64_t, 4>> nbSlope; // per tensor, bytes per step
};
GrowingPlan growingPlan(scheduler::AllocationPlan anchor, const scheduler::AllocationPlan* nextStep,
                        const std::vector<scheduler::BufferType>& bufferTypes);

// The buffers of `plan` laid out at `steps` from its anchor: each buffer's bytes as an affine
// function of the steps from there, holding wherever `choices` (steps from there too) does, the
// range in which ggml-alloc makes every choice as it made it at `steps`.
struct ComputeBuffersOverCells {
    std::vector<AffineBytes> bytes;
    StepRange choices;
};
ComputeBuffersOverCells planComputeBuffersAt(const GrowingPlan& plan, std::int64_t steps,
                                             const std::vector<scheduler::BufferType>& bufferTypes);

} // namespace llamafit::allocator

#pragma once
// planComputeBuffers: ggml's graph allocator (ggml/src/ggml-alloc.c ggml_gallocr_reserve_n) over
// the graph the scheduler hands it (scheduler::AllocationPlan): graph inputs first, then each node
// after its sources, in place over a source that dies there when the op allows it, each tensor
// freed after its last reader; one dynamic allocator per buffer type. Gives the compute buffer
// each backend reserves, as llama.cpp logs it ("Vulkan0 compute buffer size = ..."); a backend
// that shares its buffer type with an earlier one reports 0 there (ggml_gallocr_get_buffer_size).
// Pure function; bytes.

#include "core/sizing/scheduler/graphsplit.h"
#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstdint>
#include <vector>

namespace llamafit::allocator {

// `bufferTypes[b]` is backend b's compute buffer type (sched->bufts).
std::vector<std::uint64_t> planComputeBuffers(const scheduler::AllocationPlan& plan,
                                              const std::vector<scheduler::BufferType>& bufferTypes);

} // namespace llamafit::allocator

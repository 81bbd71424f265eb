#pragma once
// The CPU backend as ggml's scheduler sees it (ggml/src/ggml-cpu/ggml-cpu.cpp): it reads every
// host buffer and its extra buffer types (CPU_REPACK, which hold weights for matrix products
// only), runs every op a language model's graph has, never asks to take over an op, and its
// buffers align to 32 bytes (TENSOR_ALIGNMENT). `bufferType` is the compute buffer type llama.cpp
// gives it: "CPU" alone, the first GPU's pinned host type ("Vulkan_Host", "CUDA_Host") beside one.

#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstdint>
#include <string>

namespace llamafit::scheduler {

SchedulerBackend cpuBackend(BufferType bufferType = BufferType{"CPU", true, 32, UINT64_MAX / 2, {}});

} // namespace llamafit::scheduler

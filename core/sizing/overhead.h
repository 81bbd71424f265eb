#pragma once
// Per-device memory outside every llama.cpp buffer: the GPU runtime's own context, driver
// allocations, cuBLAS workspaces, Vulkan pipelines and scratch. Reported as
// ComponentBytes::overheadBytes, never as a buffer. Internal to core/sizing; bytes.

#include "core/sizing/serversettings.h"

#include <cstdint>

namespace llamafit {

// The default for a backend; GpuDevice::overheadBytes overrides it.
std::uint64_t defaultOverheadBytes(Backend backend);

std::uint64_t overheadBytes(const GpuDevice& gpu);

} // namespace llamafit

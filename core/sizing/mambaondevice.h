#pragma once
// Mamba models whose blocks all sit on a Vulkan GPU: the GPU's compute buffer. Mamba-1: ggml-vulkan
// has no selective-scan kernel for Mamba-1's state size, so llama.cpp keeps blk.N.ssm_a in host
// memory and the scheduler runs each block's SSM_SCAN on the CPU backend
// (ggml/src/ggml-backend.cpp ggml_backend_sched_split_graph): the scan's inputs leave the GPU
// before it and its output comes back as two copies, the final states and y. The GPU's plan is
// the block sequence of mambareplay.cpp with those copies in it, replayed over every block
// (the last one picks the output rows), as read from the server's own plans on lavapipe
// (scripts/alloc-plan). Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/sizing/recurrentcompute.h"

#include <cstdint>

namespace llamafit {

// `blocks` = the model's block count; `outputs` = the logits rows the reserve asks for.
std::uint64_t mambaOneDeviceComputeBytes(const RecurrentBlockShape& shape, std::uint32_t blocks,
                                         std::uint32_t ubatchTokens, std::uint32_t sequences,
                                         std::uint32_t outputs);

// A Mamba-2 stack (arch mamba2) with every block on a Vulkan GPU, which scans Mamba-2 itself: the
// block of mambareplay.cpp in ggml-vulkan's node order (it reorders each split's nodes, so the
// first block differs from the rest), every block replayed. Read from the server's own plan on
// lavapipe (scripts/alloc-plan/run-case.sh mamba2_ngl_all: "Vulkan0 compute buffer size = 27.88
// MiB", 4 slots).
std::uint64_t mambaTwoDeviceComputeBytes(const RecurrentBlockShape& shape, std::uint32_t blocks,
                                         std::uint32_t ubatchTokens, std::uint32_t sequences);

} // namespace llamafit

#pragma once
// The Vulkan integration matrix: every architecture of the realistic shapes
// (tests/data/shapes), cut to fewer blocks where the weights would not sit well under the
// 2 GiB of Mesa's lavapipe (the Vulkan device of the test rig, a CPU driver), crossed with
// -ngl all/part/0, -fa on/off, K/V cache types, slots (-np 1, -np 4 split, auto), ubatch
// 512/1024 and --swa-full. Each case is run against llama-server's Vulkan backend
// (<LLAMAFIT_LLAMA_SERVER_ROOT>/gpu/llama-server, tests/integration/vulkanserver_test.cpp) and
// recorded (tests/data/recorded/vulkan-lavapipe-b11669, tests/unit/recorded). Built from the
// JSON specs alone, like the CPU matrix (integrationcases.h). Test support only.
//
// Shapes: most keep real widths and vocabularies, so their token_embd/output matrices exceed
// lavapipe's 128 MiB maxStorageBufferRange (llama.cpp keeps such tensors on the CPU); the
// small ones (mamba, rwkv7, lfm2, ...) and a llama with a 32000-token vocabulary have every
// tensor under it.

#include "core/sizing/serversettings.h"
#include "tests/support/integrationcases.h"

#include <cstdint>
#include <vector>

namespace llamafit::test {

// lavapipe's limits as `vulkaninfo` reports them (Mesa 22.3, LLVM 15): maxStorageBufferRange
// 134217728 and maxMemoryAllocationSize 0x80000000. ggml-vulkan keeps a tensor bigger than the
// first off the device (ggml/src/ggml-vulkan/ggml-vulkan.cpp).
inline constexpr std::uint64_t kLavapipeMaxStorageBufferRangeBytes = 128ull * 1024 * 1024;
inline constexpr std::uint64_t kLavapipeMaxMemoryAllocationBytes = 2048ull * 1024 * 1024;

// The Vulkan device as the estimate is told about it: what llama-server lists as
// "Vulkan0 : llvmpipe (LLVM 15.0.6, 256 bits) (2048 MiB, 2048 MiB free)". The one place
// to give the estimate lavapipe's limits (above) once GpuDevice carries device limits.
GpuDevice lavapipeDevice();

std::vector<IntegrationShape> vulkanShapes();
// The whole matrix: recorded, and run live by scripts/record-server-runs.sh --backend vulkan.
std::vector<IntegrationCase> vulkanIntegrationCases();
// The part ctest runs live (a few minutes on two cores): two settings per shape, picked by
// the shape's position so that every settings variant of the all-shapes set is covered.
std::vector<IntegrationCase> vulkanLiveCases();

} // namespace llamafit::test

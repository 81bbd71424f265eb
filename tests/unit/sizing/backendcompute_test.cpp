// Backend- and generation-specific compute terms (core/sizing/backendcompute.h).
#include "core/sizing/backendcompute.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(BackendCompute, CudaAndHipCopyAQuantizedCacheToF16ForFlashAttention) {
    // Qwen3.5-4B-like: 4 KV heads x (256 + 256) values per cell, 204800 cells: 800 MiB of f16 K+V.
    const std::uint64_t cells = 204800;
    const std::uint64_t row = 4 * (256 + 256);
    for (Backend backend : {Backend::Cuda, Backend::Rocm}) {
        EXPECT_EQ(flashAttentionF16CopyBytes(backend, GraphReserve::Current, true, GgmlType::Q8_0,
                                             GgmlType::Q8_0, cells, row),
                  800ull << 20);
        EXPECT_EQ(flashAttentionF16CopyBytes(backend, GraphReserve::Current, true, GgmlType::Q8_0,
                                             GgmlType::F16, cells, row),
                  800ull << 20);
    }
}

TEST(BackendCompute, NoF16CopiesElsewhere) {
    const auto bytes = [](Backend backend, GraphReserve generation, bool fa, GgmlType k) {
        return flashAttentionF16CopyBytes(backend, generation, fa, k, k, 4096, 1024);
    };
    EXPECT_EQ(bytes(Backend::Cuda, GraphReserve::Current, true, GgmlType::F16), 0u);
    EXPECT_EQ(bytes(Backend::Cuda, GraphReserve::Current, false, GgmlType::Q8_0), 0u);
    EXPECT_EQ(bytes(Backend::Cuda, GraphReserve::BeforeJune2026, true, GgmlType::Q8_0), 0u);
    EXPECT_EQ(bytes(Backend::Vulkan, GraphReserve::Current, true, GgmlType::Q8_0), 0u);
    EXPECT_EQ(bytes(Backend::Metal, GraphReserve::Current, true, GgmlType::Q8_0), 0u);
}

TEST(BackendCompute, MaskIsF16OnTheHostOnlyWithFlashAttentionInTheCurrentGeneration) {
    EXPECT_EQ(hostMaskElementBytes(GraphReserve::Current, true), 2u);
    EXPECT_EQ(hostMaskElementBytes(GraphReserve::Current, false), 4u);
    EXPECT_EQ(hostMaskElementBytes(GraphReserve::BeforeJune2026, true), 4u);
}

TEST(BackendCompute, OlderBuildsHoldTheF32CopyAndItsCastTogether) {
    // The RTX 3090 public log (b8946): 200192 cells x 512 tokens -> 391 MiB f32 + 195.5 MiB f16.
    const std::uint64_t elements = std::uint64_t{200192} * 512;
    EXPECT_EQ(legacyMaskCastPeakBytes(GraphReserve::BeforeJune2026, true, elements, 0), elements * 6);
    EXPECT_EQ(legacyMaskCastPeakBytes(GraphReserve::BeforeJune2026, false, elements, 7), 0u);
    EXPECT_EQ(legacyMaskCastPeakBytes(GraphReserve::Current, true, elements, 7), 0u);
}

} // namespace
} // namespace llamafit

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
        EXPECT_EQ(flashAttentionF16CopyBytes(backend, LlamaGeneration::Current, true, GgmlType::Q8_0,
                                             GgmlType::Q8_0, cells, row),
                  800ull << 20);
        EXPECT_EQ(flashAttentionF16CopyBytes(backend, LlamaGeneration::Current, true, GgmlType::Q8_0,
                                             GgmlType::F16, cells, row),
                  800ull << 20);
    }
}

TEST(BackendCompute, NoF16CopiesElsewhere) {
    const auto bytes = [](Backend backend, LlamaGeneration generation, bool fa, GgmlType k) {
        return flashAttentionF16CopyBytes(backend, generation, fa, k, k, 4096, 1024);
    };
    EXPECT_EQ(bytes(Backend::Cuda, LlamaGeneration::Current, true, GgmlType::F16), 0u);
    EXPECT_EQ(bytes(Backend::Cuda, LlamaGeneration::Current, false, GgmlType::Q8_0), 0u);
    EXPECT_EQ(bytes(Backend::Cuda, LlamaGeneration::BeforeJune2026, true, GgmlType::Q8_0), 0u);
    EXPECT_EQ(bytes(Backend::Vulkan, LlamaGeneration::Current, true, GgmlType::Q8_0), 0u);
    EXPECT_EQ(bytes(Backend::Metal, LlamaGeneration::Current, true, GgmlType::Q8_0), 0u);
}

TEST(BackendCompute, MaskIsF16OnTheHostOnlyWithFlashAttentionFromJune2026) {
    EXPECT_EQ(hostMaskElementBytes(LlamaGeneration::Current, true), 2u);
    EXPECT_EQ(hostMaskElementBytes(LlamaGeneration::BeforeMixedInput, true), 2u);
    EXPECT_EQ(hostMaskElementBytes(LlamaGeneration::Current, false), 4u);
    EXPECT_EQ(hostMaskElementBytes(LlamaGeneration::BeforeJune2026, true), 4u);
    EXPECT_EQ(hostMaskElementBytes(LlamaGeneration::BeforeInputSelect, true), 4u);
}

TEST(BackendCompute, HostInputRowsGrowWithTheInputPaths) {
    EXPECT_EQ(hostEmbeddingRows(LlamaGeneration::BeforeInputSelect), 1u);
    EXPECT_EQ(hostEmbeddingRows(LlamaGeneration::BeforeJune2026), 2u);
    EXPECT_EQ(hostEmbeddingRows(LlamaGeneration::BeforeMixedInput), 2u);
    EXPECT_EQ(hostEmbeddingRows(LlamaGeneration::Current), 4u);
}

} // namespace
} // namespace llamafit

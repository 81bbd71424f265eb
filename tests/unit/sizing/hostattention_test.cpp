// The host compute buffer when the GPU refuses KQ (core/sizing/hostattention.h), against
// Vulkan_Host's plans in llama-server 0.7.0 on lavapipe (llama_l4: n_embd 2048, 32 heads, 8 KV
// heads x 64, -fa off -ngl all; scripts/alloc-plan/run-case.sh).
#include "core/sizing/hostattention.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr std::uint64_t kMebibyte = 1024 * 1024;
constexpr std::uint64_t kAlignmentSlack = 64 * 16; // lavapipe's host buffer aligns to 64 B, the replay to 32

HostAttentionShape llamaL4(std::uint64_t streams) {
    HostAttentionShape shape;
    shape.embd = 2048;
    shape.queryValues = 2048;
    shape.valueRowValues = 512;
    shape.cells = 4096;
    shape.keyCopyBytes = streams * 4096 * 512 * 2;
    shape.valueCopyBytes = shape.keyCopyBytes;
    shape.kqBytes = 256 * kMebibyte; // 4096 cells x 512 tokens x 32 heads, f32
    return shape;
}

TEST(HostAttention, TheLayersKFitsTheHoleTheMixedInputLeft) {
    // llama_l4_ngl_all_np1_faoff: the 4 MiB K copy lands in the mixed-embedding rows' hole:
    // "Vulkan_Host compute buffer size = 282.01 MiB" (ggml-alloc's plan: 295712832 B).
    EXPECT_NEAR(static_cast<double>(hostAttentionBytes(llamaL4(1), 512, 1)), 295712832.0, kAlignmentSlack);
}

TEST(HostAttention, FourStreamsOfKGoAboveTheInputs) {
    // llama_l4_ngl_all_c16384_np4_faoff: K and V of four streams, 16 MiB each, above the inputs,
    // Q in the hole: "306.01 MiB" (320878656 B).
    EXPECT_NEAR(static_cast<double>(hostAttentionBytes(llamaL4(4), 512, 4)), 320878656.0, kAlignmentSlack);
}

TEST(HostAttention, ASecondCachesInputsStay) {
    // cohere2_l4_ngl_all_c16384_np4_faoff (n_embd 4096, 32 heads, 8 KV heads x 128; a full and a
    // sliding-window cache of 4096 cells per stream): the second cache's indices and f32 mask stay
    // among the inputs, so K, V (32 MiB each over four streams) and KQ (256 MiB) go above them:
    // "Vulkan_Host compute buffer size = 360.02 MiB".
    HostAttentionShape shape;
    shape.embd = 4096;
    shape.queryValues = 4096;
    shape.valueRowValues = 1024;
    shape.cells = 4096;
    shape.keyCopyBytes = 32 * kMebibyte;
    shape.valueCopyBytes = 32 * kMebibyte;
    shape.kqBytes = 256 * kMebibyte;
    const double alone = static_cast<double>(hostAttentionBytes(shape, 512, 4)) / kMebibyte;
    shape.otherCaches.push_back({4096, 1024});
    EXPECT_NEAR(static_cast<double>(hostAttentionBytes(shape, 512, 4)) / kMebibyte, 360.02, 0.005);
    EXPECT_NEAR(alone, 348.01, 0.005) << "the second cache: 8 MiB of mask, 4 of V indices";
}

TEST(HostAttention, NothingRefusedIsZero) {
    HostAttentionShape shape = llamaL4(1);
    shape.kqBytes = 0;
    EXPECT_EQ(hostAttentionBytes(shape, 512, 1), 0u);
    EXPECT_EQ(hostAttentionBytes(llamaL4(1), 0, 1), 0u);
}

} // namespace
} // namespace llamafit

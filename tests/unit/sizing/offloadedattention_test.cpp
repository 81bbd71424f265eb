// The first GPU's compute buffer while it runs the op-offloaded blocks of a llama-family model with
// flash attention (core/sizing/offloadedattention.h), against the byte counts ggml-alloc chose in
// llama-server 0.7.0 on lavapipe, read from its allocation plans (scripts/alloc-plan/run-case.sh;
// -c 4096 -np 1 -ngl 0; tests/data/shapes).
#include "core/sizing/offloadedattention.h"

#include "core/sizing/estimator.h"
#include "tests/support/vulkancases.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr std::uint64_t kOffloadedAttentionVulkanAlignmentSlack =
    64 * 8; // lavapipe aligns to 64 B, the replay to 32
constexpr std::uint32_t kCells = 4096;

// One f16 cache of kCells cells over every block, as -c 4096 -np 1 makes it.
KvPlan f16Cache(const ModelInfo& model) {
    KvPlan kv;
    KvCacheEstimate cache;
    cache.cells = kCells;
    cache.layers = static_cast<std::uint32_t>(model.layers.size());
    const LayerInfo& layer = model.layers.front();
    cache.kBytes = std::uint64_t{cache.layers} * kCells * layer.headCountKv * layer.keyHeadDim * 2;
    cache.vBytes = std::uint64_t{cache.layers} * kCells * layer.headCountKv * layer.valueHeadDim * 2;
    kv.caches.push_back(cache);
    kv.layerInSwaCache.assign(model.layers.size(), false);
    return kv;
}

LayerPlacement onHost(const ModelInfo& model, std::size_t gpuBlocks = 0) {
    LayerPlacement layers;
    layers.layerDevice.assign(model.layers.size(), kHostDevice);
    for (std::size_t il = model.layers.size() - gpuBlocks; il < model.layers.size(); ++il) {
        layers.layerDevice[il] = 0;
    }
    return layers;
}

std::uint64_t deviceBytes(const ModelInfo& model, bool expertsOnCpu = false) {
    const auto shape =
        offloadedAttentionShape(model, f16Cache(model), onHost(model), {true, expertsOnCpu, {}});
    EXPECT_TRUE(shape.has_value()) << model.architecture;
    return shape ? offloadedAttentionComputeBytes(*shape, 512) : 0;
}

TEST(OffloadedAttention, TheGpuPlanIsTheServersOwn) {
    // "Vulkan0 compute buffer size = 38.13 MiB" (qwen3: q/k norms), "47.42 MiB" (qwen2: q/k/v
    // biases), "88.00 MiB" (llama, whose 32 MiB FFN weight copies make the peak).
    EXPECT_NEAR(static_cast<double>(deviceBytes(test::interpretedShape("qwen3.json"))), 39981056.0,
                kOffloadedAttentionVulkanAlignmentSlack);
    EXPECT_NEAR(static_cast<double>(deviceBytes(test::interpretedShape("qwen2.json"))), 49723392.0,
                kOffloadedAttentionVulkanAlignmentSlack);
    EXPECT_NEAR(static_cast<double>(deviceBytes(test::llama1B())), 92278784.0,
                kOffloadedAttentionVulkanAlignmentSlack);
}

TEST(OffloadedAttention, RefusedExpertsComeBackFromTheCpu) {
    // qwen3moe_l8_ngl0_np1: lavapipe refuses the 128 experts' tensors, so the CPU runs them and
    // their 8 outputs per token come back: "Vulkan0 compute buffer size = 60.00 MiB".
    const ModelInfo qwen3moe = test::interpretedShape("qwen3moe.json");
    EXPECT_NEAR(static_cast<double>(deviceBytes(qwen3moe, true)), 62918656.0,
                kOffloadedAttentionVulkanAlignmentSlack);
    // Offloaded experts would copy expert weights in: not measured, so not replayed.
    EXPECT_FALSE(offloadedAttentionShape(qwen3moe, f16Cache(qwen3moe), onHost(qwen3moe), {true, false, {}})
                     .has_value());
}

// The shape of a model with a sliding-window cache, as -c 4096 -np 1 sizes its caches; `gpuBlocks`
// trailing blocks on the GPU.
std::optional<OffloadedAttentionShape> slidingWindowShape(const ModelInfo& model, bool expertsOnCpu = false,
                                                          std::size_t gpuBlocks = 0) {
    ServerSettings settings;
    settings.contextTokens = kCells;
    settings.parallelSlots = 1;
    const ResolvedContext context = resolveContext(model, settings).value();
    const KvPlan kv = sizeKvCaches(model, settings, context);
    EXPECT_EQ(kv.caches.size(), 2u);
    return offloadedAttentionShape(model, kv, onHost(model, gpuBlocks), {true, expertsOnCpu, {}});
}

TEST(OffloadedAttention, GptOssBiasesItsExpertsOnTheGpu) {
    // gpt_oss_l8_ngl0_np1 and _ngl_part_np1 (-ngl 4: blocks 0-4 on the host): "Vulkan0 compute buffer
    // size = 106.00 MiB", at block 1's GLU: the first global layer's 4 MiB mask stays below the
    // experts' gate, up and GLU (4 of 32 experts, n_ff 2880: 22.50 MiB each). The closed form said
    // 90.77.
    const ModelInfo gptOss = test::interpretedShape("gpt-oss.json", 8);
    for (const std::size_t gpuBlocks : {0u, 3u}) {
        const auto shape = slidingWindowShape(gptOss, true, gpuBlocks);
        ASSERT_TRUE(shape.has_value());
        EXPECT_EQ(shape->expertFeedForward, 2880u);
        EXPECT_GT(shape->hostBlocks.front().sinks, 0u);
        EXPECT_NEAR(static_cast<double>(offloadedAttentionComputeBytes(*shape, 512)) / (1024.0 * 1024.0),
                    106.00, 0.005)
            << gpuBlocks << " blocks on the GPU";
    }
}

TEST(OffloadedAttention, GemmaCopiesEachCachesMaskAtItsFirstLayer) {
    // gemma3_ngl0_np1: the sliding-window layers' K, V and mask are small, the peak comes at the
    // first global layer (block 5), whose full-size mask stays to the end: "66.77 MiB".
    const auto shape = slidingWindowShape(test::interpretedShape("gemma3.json"));
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->order.keyFirst);
    EXPECT_NEAR(static_cast<double>(offloadedAttentionComputeBytes(*shape, 512)), 70012928.0,
                kOffloadedAttentionVulkanAlignmentSlack);
}

TEST(OffloadedAttention, TheFinalLayerStopsAtItsOutputProjection) {
    // cohere2_l4_ngl0_np1: block 3, the first global layer, is the last; its FFN runs on the one
    // output row (on the CPU), so its full-size mask does not meet an FFN peak: "175.50 MiB".
    const auto shape = slidingWindowShape(test::interpretedShape("cohere2.json", 4));
    ASSERT_TRUE(shape.has_value());
    EXPECT_TRUE(shape->order.parallelFeedForward);
    ASSERT_EQ(shape->hostBlocks.size(), 4u);
    EXPECT_TRUE(shape->hostBlocks.back().last);
    EXPECT_NEAR(static_cast<double>(offloadedAttentionComputeBytes(*shape, 512)), 184029184.0,
                kOffloadedAttentionVulkanAlignmentSlack);
}

TEST(OffloadedAttention, WithoutFlashAttentionTheGpuAttendsUnlessItRefusesKq) {
    const DeviceLimits lavapipe{test::kLavapipeMaxStorageBufferRangeBytes,
                                test::kLavapipeMaxMemoryAllocationBytes};
    // gemma3_ngl0_np1_faoff: KQ (at most 32 MiB) fits lavapipe's storage range, so the GPU
    // attends with copies of K, V and the f32 mask: "Vulkan0 compute buffer size = 69.82 MiB".
    const ModelInfo gemma3 = test::interpretedShape("gemma3.json");
    ServerSettings settings;
    settings.contextTokens = kCells;
    settings.parallelSlots = 1;
    const ResolvedContext context = resolveContext(gemma3, settings).value();
    const auto gemma = offloadedAttentionShape(gemma3, sizeKvCaches(gemma3, settings, context),
                                               onHost(gemma3), {false, false, lavapipe});
    ASSERT_TRUE(gemma.has_value());
    EXPECT_NEAR(static_cast<double>(offloadedAttentionComputeBytes(*gemma, 512)), 73216000.0,
                kOffloadedAttentionVulkanAlignmentSlack);
    // llama_l4_ngl0_np1_faoff: KQ is 256 MiB, so the CPU attends and only the attention's output
    // comes back: "80.00 MiB".
    const ModelInfo llama = test::llama1B();
    const auto refused =
        offloadedAttentionShape(llama, f16Cache(llama), onHost(llama), {false, false, lavapipe});
    ASSERT_TRUE(refused.has_value());
    EXPECT_NEAR(static_cast<double>(offloadedAttentionComputeBytes(*refused, 512)), 83890176.0,
                kOffloadedAttentionVulkanAlignmentSlack);
}

TEST(OffloadedAttention, APartialOffloadReplaysTheHostBlocksOnly) {
    // qwen3_ngl_part_np1 (-ngl 14: blocks 0-13 on the host) logs the -ngl 0 figure: the first
    // host block holds the peak.
    const ModelInfo qwen3 = test::interpretedShape("qwen3.json");
    const auto shape = offloadedAttentionShape(qwen3, f16Cache(qwen3), onHost(qwen3, 14), {true, false, {}});
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->hostBlocks.size(), 14u);
    EXPECT_NEAR(static_cast<double>(offloadedAttentionComputeBytes(*shape, 512)), 39981056.0,
                kOffloadedAttentionVulkanAlignmentSlack);
}

TEST(OffloadedAttention, OtherGraphsAndFullOffloadAreNotReplayed) {
    const ModelInfo mla = test::deepseekMlaLite();
    EXPECT_FALSE(offloadedAttentionShape(mla, f16Cache(mla), onHost(mla), {true, true, {}}).has_value());
    const ModelInfo llama = test::llama1B();
    EXPECT_FALSE(
        offloadedAttentionShape(llama, f16Cache(llama), onHost(llama, llama.layers.size()), {true, false, {}})
            .has_value());
    EXPECT_EQ(offloadedAttentionComputeBytes(OffloadedAttentionShape{}, 512), 0u);
}

} // namespace
} // namespace llamafit

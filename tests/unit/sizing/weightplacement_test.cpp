// Weight buffers against §7 rows 1, 10, 11, 14 and 19, and the -ngl / -ot rules of §2.4.
#include "core/sizing/estimator.h"
#include "core/sizing/weightclass.h"
#include "core/sizing/weightplacement.h"
#include "tests/unit/sizing/estimatequery.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <regex>

namespace llamafit {
namespace {

using test::bufferBytes;
using test::kLogRoundingMiB;
using test::mib;

ServerSettings basic() {
    ServerSettings s;
    s.contextTokens = 4096;
    s.parallelSlots = 1;
    return s;
}

MemoryEstimate estimate(const ModelInfo& model, const ServerSettings& s,
                        const std::vector<GpuDevice>& gpus = {}) {
    auto result = estimateMemory(model, s, gpus);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    return result.ok() ? result.value() : MemoryEstimate{};
}

GpuDevice cuda(std::uint64_t gib = 24) {
    return {"CUDA0", gib * kGiB, Backend::Cuda, false, std::nullopt};
}

TEST(WeightPlacement, TiedF16OnTheCpuIsMappedOnceRowOne) {
    // "CPU_Mapped model buffer size = 2357.26 MiB": the tied output reuses token_embd's tensor.
    const MemoryEstimate e = estimate(test::llama1B(), basic());
    EXPECT_NEAR(mib(bufferBytes(e, "CPU", "CPU_Mapped", Component::Model)), 2357.26, kLogRoundingMiB);
    EXPECT_EQ(e.totals.modelBytes, bufferBytes(e, "CPU", "CPU_Mapped", Component::Model));
}

TEST(WeightPlacement, Q8_0IsNotRepackedAndLoadModeNamesTheBufferRowTen) {
    const ModelInfo model = test::llama1B(GgmlType::Q8_0);
    EXPECT_NEAR(mib(bufferBytes(estimate(model, basic()), "CPU", "CPU_Mapped", Component::Model)), 1252.41,
                kLogRoundingMiB);
    ServerSettings copied = basic();
    copied.loadMode = LoadMode::None;
    const MemoryEstimate none = estimate(model, copied);
    EXPECT_NEAR(mib(bufferBytes(none, "CPU", "CPU", Component::Model)), 1252.41, kLogRoundingMiB);
    EXPECT_EQ(bufferBytes(none, "CPU", "CPU_Mapped", Component::Model), 0u);
    ServerSettings noRepack = basic();
    noRepack.repack = false;
    EXPECT_NEAR(mib(bufferBytes(estimate(model, noRepack), "CPU", "CPU_Mapped", Component::Model)), 1252.41,
                kLogRoundingMiB);
}

TEST(WeightPlacement, Q4_0IsRepackedWithTheTiedOutputCopyRowEleven) {
    // "CPU_REPACK 662.91 + 32 x CPU_Mapped pieces (140.92 + 0.01 ...)": the output copy of
    // token_embd is repacked, the input token_embd (GET_ROWS) stays mapped.
    const MemoryEstimate e = estimate(test::llama1B(GgmlType::Q4_0), basic());
    EXPECT_NEAR(mib(bufferBytes(e, "CPU", "CPU_REPACK", Component::Model)), 662.91, kLogRoundingMiB);
    // token_embd 140.906 + 33 norms of 8 KiB; the log prints it as 32 pieces.
    const std::uint64_t mapped = bufferBytes(e, "CPU", "CPU_Mapped", Component::Model);
    EXPECT_EQ(mapped, ggmlRowBytes(GgmlType::Q4_0, 2048) * 128256 + 33 * 2048 * 4);
    ServerSettings noRepack = basic();
    noRepack.repack = false;
    const MemoryEstimate plain = estimate(test::llama1B(GgmlType::Q4_0), noRepack);
    EXPECT_EQ(bufferBytes(plain, "CPU", "CPU_REPACK", Component::Model), 0u);
    EXPECT_EQ(bufferBytes(plain, "CPU", "CPU_Mapped", Component::Model),
              e.totals.modelBytes - ggmlRowBytes(GgmlType::Q4_0, 2048) * 128256);
}

TEST(WeightPlacement, UntiedQ4KWithoutRepackRowNineteen) {
    ServerSettings s = basic();
    s.contextTokens = 32768;
    s.repack = false;
    EXPECT_NEAR(mib(bufferBytes(estimate(test::llama3_8B(), s), "CPU", "CPU_Mapped", Component::Model)),
                4308.64, kLogRoundingMiB);
}

TEST(WeightPlacement, Qwen35MoeRowFourteen) {
    ServerSettings s;
    s.contextTokens = 4096;
    EXPECT_NEAR(mib(bufferBytes(estimate(test::qwen35_35B_A3B(), s), "CPU", "CPU_Mapped", Component::Model)),
                35183.10, kLogRoundingMiB);
}

TEST(WeightPlacement, RepackNeedsRowsInGroupsOfEight) {
    TensorSummary t{"blk.0.ffn_up.weight", TensorRole::Layer, 0, false, GgmlType::Q4_0, 0, 4096};
    t.bytes = ggmlRowBytes(GgmlType::Q4_0, 4096) * 16;
    EXPECT_TRUE(cpuRepacks(t));
    t.bytes = ggmlRowBytes(GgmlType::Q4_0, 4096) * 12;
    EXPECT_FALSE(cpuRepacks(t));
    t.type = GgmlType::Q8_0;
    t.bytes = ggmlRowBytes(GgmlType::Q8_0, 4096) * 16;
    EXPECT_FALSE(cpuRepacks(t));
}

TEST(WeightPlacement, ExpertsPatternMatchesLikeTheRegex) {
    const std::regex all("\\.ffn_(up|down|gate|gate_up)_(ch|)exps");
    const std::regex block1("blk\\.1\\.ffn_(up|down|gate|gate_up)_(ch|)exps");
    for (const std::string name :
         {"blk.1.ffn_up_exps.weight", "blk.1.ffn_gate_up_exps.weight", "blk.1.ffn_down_chexps.weight",
          "blk.11.ffn_gate_exps.weight", "blk.21.ffn_up_exps.weight", "blk.1.ffn_up_shexp.weight",
          "blk.1.ffn_gate_inp.weight", "blk.1.ffn_up.weight", "xblk.1.ffn_down_exps.bias",
          "blk.1.ffn_gate_upexps"}) {
        EXPECT_EQ(matchesExpertsPattern(name, std::nullopt), std::regex_search(name, all)) << name;
        EXPECT_EQ(matchesExpertsPattern(name, 1u), std::regex_search(name, block1)) << name;
    }
}

TEST(WeightPlacement, NglOneOffloadsOnlyTheOutputHead) {
    // -ngl counts the output layer first: 1 = output only, 17 = all 16 blocks + output.
    const ModelInfo model = test::llama3_8B(GgmlType::Q8_0);
    const std::uint64_t outputBytes = ggmlRowBytes(GgmlType::Q8_0, 4096) * 128256 + 4096 * 4;
    ServerSettings s = basic();
    s.gpuLayers = GpuLayers::count(1);
    const MemoryEstimate one = estimate(model, s, {cuda()});
    EXPECT_EQ(one.gpuLayers, 1u);
    EXPECT_EQ(bufferBytes(one, "CUDA0", "CUDA0", Component::Model), outputBytes);
    EXPECT_EQ(one.devices[1].bytes.kvBytes, 0u); // no block, so no KV on the GPU
    s.gpuLayers = GpuLayers::count(3);
    const MemoryEstimate three = estimate(model, s, {cuda()});
    EXPECT_EQ(three.gpuLayers, 3u);
    // Blocks 30 and 31 (the last two) join the output layer.
    std::uint64_t lastTwo = 0;
    for (const auto& t : model.tensors) {
        lastTwo += (t.layer == 30 || t.layer == 31) ? t.bytes : 0;
    }
    EXPECT_EQ(bufferBytes(three, "CUDA0", "CUDA0", Component::Model), outputBytes + lastTwo);
    EXPECT_EQ(three.devices[1].bytes.kvBytes, 2 * three.totals.kvBytes / 32);
    s.gpuLayers = GpuLayers::count(0);
    EXPECT_EQ(estimate(model, s, {cuda()}).devices[1].bytes.modelBytes, 0u);
    s.gpuLayers.reset(); // auto = all
    const MemoryEstimate all = estimate(model, s, {cuda()});
    EXPECT_EQ(all.gpuLayers, 33u);
    // Token embeddings always stay on the CPU (mapped, because the pinned buffer gives way to mmap).
    EXPECT_EQ(bufferBytes(all, "CPU", "CPU_Mapped", Component::Model),
              ggmlRowBytes(GgmlType::Q8_0, 4096) * 128256);
}

TEST(WeightPlacement, TiedOutputOnAGpuIsASecondCopy) {
    const ModelInfo model = test::llama1B();
    const std::uint64_t embd = ggmlRowBytes(GgmlType::F16, 2048) * 128256;
    ServerSettings s = basic();
    s.gpuLayers = GpuLayers::count(1);
    const MemoryEstimate e = estimate(model, s, {cuda()});
    EXPECT_EQ(bufferBytes(e, "CUDA0", "CUDA0", Component::Model), embd + 2048 * 4);
    EXPECT_EQ(bufferBytes(e, "CPU", "CPU_Mapped", Component::Model), model.fileBytes - 2048 * 4);
    EXPECT_EQ(e.totals.modelBytes, model.fileBytes + embd); // token_embd twice
}

// llama-model-loader.cpp weight_buft_supported: the output matrix is tried in a mul_mat with 512
// columns, whose f32 result is ne1 x 512 x 4 bytes; ggml-vulkan refuses an op any tensor of which is
// over its storage range. A 1024 x 103424 Q8_0 output (107 MiB, ERNIE 4.5's tied one) has a 202 MiB
// result: over lavapipe's 128 MiB, so it stays on the CPU; at 65536 rows the result is 128 MiB,
// not over, and it goes to the GPU.
TEST(WeightPlacement, AWeightIsHeldAgainstTheLimitsThroughTheOpLlamaCppTriesOnIt) {
    const auto outputOf = [](std::uint64_t rows) {
        TensorSummary tensor;
        tensor.name = "output.weight";
        tensor.role = TensorRole::Output;
        tensor.type = GgmlType::Q8_0;
        tensor.rowValues = 1024;
        tensor.bytes = ggmlRowBytes(GgmlType::Q8_0, 1024) * rows;
        return tensor;
    };
    const ModelInfo model;
    EXPECT_EQ(weightProbeBytes(outputOf(103424), TensorRole::Output, model), 103424ull * 512 * 4);
    EXPECT_EQ(weightProbeBytes(outputOf(65536), TensorRole::Output, model), 128ull * kMiB);
    // The tied output's copy of token_embd is tried as the output; as the input it is its own size.
    EXPECT_EQ(weightProbeBytes(outputOf(103424), TensorRole::TokenEmbedding, model), outputOf(103424).bytes);
    // Routed experts in a mul_mat_id: b [ne0, used, 512] and the result [ne1, used, 512].
    ModelInfo moe;
    moe.expertCount = 64;
    moe.expertUsedCount = 8;
    TensorSummary experts;
    experts.name = "blk.1.ffn_down_exps.weight";
    experts.role = TensorRole::Layer;
    experts.expert = true;
    experts.type = GgmlType::Q8_0;
    experts.rowValues = 1536;
    experts.bytes = ggmlRowBytes(GgmlType::Q8_0, 1536) * 7168 * 64;
    EXPECT_EQ(weightProbeBytes(experts, TensorRole::Layer, moe),
              std::max<std::uint64_t>(experts.bytes, 7168ull * 8 * 512 * 4));
}

TEST(WeightPlacement, NoMmapWithAGpuUsesThePinnedHostBuffer) {
    ServerSettings s = basic();
    s.gpuLayers = GpuLayers::count(9);
    s.loadMode = LoadMode::None;
    const MemoryEstimate e = estimate(test::llama1B(GgmlType::Q4_0), s, {cuda()});
    EXPECT_GT(bufferBytes(e, "CPU", "CUDA_Host", Component::Model), 0u);
    EXPECT_EQ(bufferBytes(e, "CPU", "CPU_REPACK", Component::Model), 0u); // pinned comes before REPACK
}

TEST(WeightPlacement, IntegratedVulkanTurnsMmapOff) {
    ServerSettings s = basic();
    s.gpuLayers = GpuLayers::count(0);
    const MemoryEstimate e =
        estimate(test::llama1B(), s, {{"Vulkan0", 32 * kGiB, Backend::Vulkan, true, std::nullopt}});
    EXPECT_EQ(bufferBytes(e, "CPU", "Vulkan_Host", Component::Model), e.totals.modelBytes);
}

TEST(WeightPlacement, CpuMoeAndOverridesKeepExpertsOnTheHost) {
    const ModelInfo model = test::qwen35_35B_A3B();
    std::uint64_t experts = 0;
    std::uint64_t firstTwo = 0;
    for (const auto& t : model.tensors) {
        experts += t.expert ? t.bytes : 0;
        firstTwo += t.expert && t.layer < 2 ? t.bytes : 0;
    }
    ServerSettings s;
    s.contextTokens = 4096;
    s.cpuMoe = true;
    const MemoryEstimate cmoe = estimate(model, s, {cuda(48)});
    // Experts land in CPU_Mapped next to token_embd (mmap replaces the pinned buffer).
    const std::uint64_t embd = ggmlRowBytes(GgmlType::Q8_0, 2048) * 248320;
    EXPECT_EQ(bufferBytes(cmoe, "CPU", "CPU_Mapped", Component::Model), experts + embd);
    s.cpuMoe = false;
    s.cpuMoeLayers = 2;
    EXPECT_EQ(bufferBytes(estimate(model, s, {cuda(48)}), "CPU", "CPU_Mapped", Component::Model),
              firstTwo + embd);
    s.cpuMoeLayers = 0;
    s.tensorOverrides = {{"blk\\.(0|1)\\.ffn_(up|down|gate)_exps", "CPU"}};
    EXPECT_EQ(bufferBytes(estimate(model, s, {cuda(48)}), "CPU", "CPU_Mapped", Component::Model),
              firstTwo + embd);
    s.tensorOverrides = {{"ffn", "CUDA7"}};
    auto unknown = estimateMemory(model, s, {cuda(48)});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, "settings.bad-value");
}

TEST(WeightPlacement, TensorSplitDividesBlocksBetweenGpus) {
    const ModelInfo model = test::llama3_8B(GgmlType::Q8_0);
    ServerSettings s = basic();
    s.tensorSplit = {1.0, 3.0};
    const std::vector<GpuDevice> gpus = {cuda(), {"CUDA1", 24 * kGiB, Backend::Cuda, false, std::nullopt}};
    const MemoryEstimate e = estimate(model, s, gpus);
    // 33 layers (32 blocks + output) at split points 0.25 / 1.0: il/33 < 0.25 -> blocks 0..8 on CUDA0.
    std::uint64_t first = 0;
    for (const auto& t : model.tensors) {
        first += t.role == TensorRole::Layer && t.layer <= 8 ? t.bytes : 0;
    }
    EXPECT_EQ(e.devices[1].bytes.modelBytes, first);
    EXPECT_EQ(e.devices[1].bytes.kvBytes, 9 * e.totals.kvBytes / 32);
    EXPECT_EQ(e.devices[2].bytes.kvBytes, 23 * e.totals.kvBytes / 32);
}

} // namespace
} // namespace llamafit

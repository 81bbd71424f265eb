// The compute-buffer model against every compute line measured on the 0.7.0 CPU backend:
// llama-cpp-memory.md §2.5/§7, and the helper's calibration sweeps over shapes (2-block
// llama GGUFs written to the §7 recipe, run with -lv 4 --no-warmup -fit off).
#include "core/sizing/computebuffer.h"
#include "core/sizing/estimator.h"
#include "core/sizing/layerplacement.h"
#include "tests/unit/sizing/estimatequery.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>

namespace llamafit {
namespace {

using test::mib;

struct Case {
    const char* name;
    std::function<ModelInfo()> model;
    std::function<void(ServerSettings&)> flags;
    double loggedMiB;
};

ServerSettings settingsFor(std::uint32_t c, std::optional<std::uint32_t> np) {
    ServerSettings s;
    s.contextTokens = c;
    s.parallelSlots = np;
    return s;
}

double predictedMiB(const Case& c) {
    ServerSettings s;
    c.flags(s);
    auto estimate = estimateMemory(c.model(), s);
    EXPECT_TRUE(estimate.ok()) << c.name;
    return estimate.ok() ? mib(estimate->totals.computeBytes) : 0.0;
}

void expectWithin(const std::vector<Case>& cases, double tolerance, const char* table) {
    double worst = 0.0;
    for (const auto& c : cases) {
        const double predicted = predictedMiB(c);
        const double error = (predicted - c.loggedMiB) / c.loggedMiB;
        worst = std::max(worst, std::abs(error));
        EXPECT_LE(std::abs(error), tolerance)
            << c.name << ": predicted " << predicted << " MiB, logged " << c.loggedMiB;
        std::cout << "  " << table << " | " << c.name << " | logged " << c.loggedMiB << " | predicted "
                  << predicted << " | " << error * 100.0 << " %\n";
    }
    std::cout << "  " << table << ": worst " << worst * 100.0 << " %\n";
}

auto flags(std::uint32_t c, std::optional<std::uint32_t> np, std::function<void(ServerSettings&)> more = {}) {
    return [=](ServerSettings& s) {
        s = settingsFor(c, np);
        if (more) {
            more(s);
        }
    };
}
auto faOff = [](ServerSettings& s) { s.flashAttention = FlashAttention::Off; };
auto ub = [](std::uint32_t tokens) { return [=](ServerSettings& s) { s.ubatchTokens = tokens; }; };
auto cacheTypesFlags = [](GgmlType type) {
    return [=](ServerSettings& s) {
        s.cacheTypeK = type;
        s.cacheTypeV = type;
    };
};
auto unifiedKv = [](ServerSettings& s) { s.kvUnified = true; };
auto swaFull = [](ServerSettings& s) { s.swaFull = true; };

// §2.5 and §7 of llama-cpp-memory.md (b11669, CPU, FA auto -> on, -ub 512 unless told).
TEST(ComputeBuffer, MeasuredVectorsWithinFivePercent) {
    const std::vector<Case> cases = {
        {"llama-1B c4096 np1", [] { return test::llama1B(); }, flags(4096, 1), 72.02},
        {"llama-1B c16384 np1", [] { return test::llama1B(); }, flags(16384, 1), 84.02},
        {"llama-1B c65536 np1", [] { return test::llama1B(); }, flags(65536, 1), 132.02},
        {"llama-1B FA off c4096", [] { return test::llama1B(); }, flags(4096, 1, faOff), 290.01},
        {"llama-1B FA off c16384", [] { return test::llama1B(); }, flags(16384, 1, faOff), 1082.01},
        {"llama-1B FA off c65536", [] { return test::llama1B(); }, flags(65536, 1, faOff), 4250.01},
        {"llama-1B ub128", [] { return test::llama1B(); }, flags(4096, 1, ub(128)), 18.00},
        {"llama-1B ub2048", [] { return test::llama1B(); }, flags(4096, 1, ub(2048)), 288.07},
        {"llama-1B np4 unified", [] { return test::llama1B(); }, flags(4096, std::nullopt), 72.02},
        {"llama-1B np4 separate", [] { return test::llama1B(); }, flags(4096, 4), 69.02},
        {"llama-1B q8_0 KV", [] { return test::llama1B(); }, flags(4096, 1, cacheTypesFlags(GgmlType::Q8_0)),
         72.05},
        {"llama-3-8B c32768 f16", [] { return test::llama3_8B(); }, flags(32768, 1), 156.02},
        {"llama-3-8B c32768 q8_0", [] { return test::llama3_8B(); },
         flags(32768, 1, cacheTypesFlags(GgmlType::Q8_0)), 156.10},
        {"llama-3-8B c32768 q4_0", [] { return test::llama3_8B(); },
         flags(32768, 1, cacheTypesFlags(GgmlType::Q4_0)), 156.10},
        {"qwen3.5 c4096 auto", test::qwen35_35B_A3B, flags(4096, std::nullopt), 80.02},
        {"qwen3.5 c32768 auto", test::qwen35_35B_A3B, flags(32768, std::nullopt), 108.02},
        {"qwen3.5 c65536 q8_0", test::qwen35_35B_A3B,
         flags(65536, std::nullopt, cacheTypesFlags(GgmlType::Q8_0)), 140.29},
        {"qwen3.5 c32768 np4 separate", test::qwen35_35B_A3B, flags(32768, 4), 84.02},
        {"qwen3.5 FA off c32768", test::qwen35_35B_A3B, flags(32768, std::nullopt, faOff), 1134.02},
        {"gemma-3 c8192 auto", test::gemma3_1B, flags(8192, std::nullopt), 62.28},
        {"gemma-3 c8192 np1", test::gemma3_1B, flags(8192, 1), 60.78},
        {"gemma-3 c8192 np1 swa-full", test::gemma3_1B, flags(8192, 1, swaFull), 67.78},
        {"gemma-3 c8192 ub2048", test::gemma3_1B, flags(8192, std::nullopt, ub(2048)), 255.11},
    };
    expectWithin(cases, 0.05, "§7");
}

// Calibration sweeps run by the sizing helper on the same binary (FA auto, -np 1, c 4096, F16,
// vocab 32000, 2 blocks): one column of widths at a time.
TEST(ComputeBuffer, CalibrationSweepsWithinFivePercent) {
    using test::llamaLike;
    using Shape = test::LlamaLikeShape;
    auto shape = [](Shape s) { return [=] { return llamaLike(s); }; };
    auto ffSweep = [](std::uint32_t e, std::uint32_t ff) { return Shape{e, 16, 4, e / 16, ff, 32000, 2}; };
    const std::vector<Case> cases = {
        {"e2048 ff4096", shape({2048, 32, 8, 64, 4096}), flags(4096, 1), 40.02},
        {"e2048 ff4096 FA off", shape({2048, 32, 8, 64, 4096}), flags(4096, 1, faOff), 290.01},
        {"e4096 ff4096", shape({4096, 32, 8, 128, 4096}), flags(4096, 1), 52.02},
        {"e4096 ff4096 FA off", shape({4096, 32, 8, 128, 4096}), flags(4096, 1, faOff), 316.01},
        {"e1024 h16 ff8192", shape({1024, 16, 8, 64, 8192}), flags(4096, 1), 62.02},
        {"e1024 h16 ff8192 FA off", shape({1024, 16, 8, 64, 8192}), flags(4096, 1, faOff), 150.01},
        {"h16 kv2 hd128 FA off", shape({2048, 16, 2, 128, 8192}), flags(4096, 1, faOff), 161.01},
        {"h32 hd128 FA off", shape({2048, 32, 8, 128, 8192}), flags(4096, 1, faOff), 304.01},
        {"h32 kv32 FA off", shape({2048, 32, 32, 64, 8192}), flags(4096, 1, faOff), 296.01},
        {"h8 hd256 FA off", shape({2048, 8, 8, 256, 8192}), flags(4096, 1, faOff), 104.01},
        {"h64 hd128 ff2048", shape({2048, 64, 8, 128, 2048}), flags(4096, 1), 56.02},
        {"h64 hd128 ff2048 FA off", shape({2048, 64, 8, 128, 2048}), flags(4096, 1, faOff), 576.01},
        {"h32 kv32 hd128 ff2048", shape({2048, 32, 32, 128, 2048}), flags(4096, 1), 56.02},
        {"h32 kv32 hd128 ff2048 FA off", shape({2048, 32, 32, 128, 2048}), flags(4096, 1, faOff), 316.01},
        {"e1024 h32 hd128 ff1024", shape({1024, 32, 4, 128, 1024}), flags(4096, 1), 30.02},
        {"e1024 h32 hd128 ff1024 FA off", shape({1024, 32, 4, 128, 1024}), flags(4096, 1, faOff), 292.01},
        {"ff 2048/2048", shape(ffSweep(2048, 2048)), flags(4096, 1), 28.02},
        {"ff 2048/3072", shape(ffSweep(2048, 3072)), flags(4096, 1), 36.02},
        {"ff 2048/5120", shape(ffSweep(2048, 5120)), flags(4096, 1), 54.02},
        {"ff 2048/6144", shape(ffSweep(2048, 6144)), flags(4096, 1), 60.02},
        {"ff 2048/7168", shape(ffSweep(2048, 7168)), flags(4096, 1), 66.02},
        {"ff 4096/6144", shape(ffSweep(4096, 6144)), flags(4096, 1), 68.02},
        {"ff 3072/8192", shape(ffSweep(3072, 8192)), flags(4096, 1), 82.02},
        {"ff 4096/11008", shape(ffSweep(4096, 11008)), flags(4096, 1), 108.52},
        {"ff 4096/12288", shape(ffSweep(4096, 12288)), flags(4096, 1), 116.02},
        {"ff 1024/3072", shape(ffSweep(1024, 3072)), flags(4096, 1), 32.02},
        {"ff 2560/9728", shape(ffSweep(2560, 9728)), flags(4096, 1), 86.02},
        {"ff 5120/13824", shape(ffSweep(5120, 13824)), flags(4096, 1), 135.02},
        {"ff 5120/25600", shape(ffSweep(5120, 25600)), flags(4096, 1), 204.02},
        {"1B-like c256 (ub 256)", shape({}), flags(256, 1), 34.13},
        {"1B-like c300 (n_batch = n_ubatch = 300)", shape({}), flags(300, 1), 40.15},
        {"1B-like c512 FA off", shape({}), flags(512, 1, faOff), 71.01},
        {"1B-like c1024 FA off", shape({}), flags(1024, 1, faOff), 92.01},
        {"1B-like c8192 FA off", shape({}), flags(8192, 1, faOff), 554.01},
        {"1B-like c8192", shape({}), flags(8192, 1), 76.02},
        {"vocab 262k np64 unified", shape({512, 8, 2, 64, 1024, 262144}), flags(16384, 64, unifiedKv), 85.02},
        {"vocab 262k np16 unified", shape({512, 8, 2, 64, 1024, 262144}), flags(16384, 16, unifiedKv), 25.02},
        {"vocab 262k np1", shape({512, 8, 2, 64, 1024, 262144}), flags(16384, 1), 25.02},
        {"vocab 262k np64 ub128 c4096", shape({512, 8, 2, 64, 1024, 262144}),
         flags(4096, 64,
               [](ServerSettings& s) {
                   s.kvUnified = true;
                   s.ubatchTokens = 128;
               }),
         66.25},
    };
    expectWithin(cases, 0.05, "sweep");
}

// MoE and hybrid sweeps (qwen35moe / qwen35 with 4 blocks, qwen3moe with 2; -c 4096 -np 1, Q8_0).
TEST(ComputeBuffer, MoeAndHybridSweepsWithinFivePercent) {
    using test::Qwen35Shape;
    using test::Qwen3MoeShape;
    auto q35 = [](std::function<void(Qwen35Shape&)> edit) {
        return [=] {
            Qwen35Shape shape;
            edit(shape);
            return test::qwen35Like(shape);
        };
    };
    auto q3 = [](Qwen3MoeShape shape) { return [=] { return test::qwen3MoeLike(shape); }; };
    auto dense = [](std::uint32_t e, std::uint32_t heads, std::uint32_t kvHeads, std::uint32_t ff) {
        return [=](Qwen35Shape& s) {
            s.embd = e;
            s.heads = heads;
            s.kvHeads = kvHeads;
            s.experts = 0;
            s.feedForward = ff;
        };
    };
    const auto c4096 = flags(4096, 1);
    const std::vector<Case> cases = {
        {"qwen35moe base", q35([](Qwen35Shape&) {}), c4096, 80.02},
        {"qwen35moe u4", q35([](Qwen35Shape& s) { s.used = 4; }), c4096, 58.02},
        {"qwen35moe u16", q35([](Qwen35Shape& s) { s.used = 16; }), c4096, 136.02},
        {"qwen35moe f1024", q35([](Qwen35Shape& s) { s.expertFeedForward = 1024; }), c4096, 72.02},
        {"qwen35moe f256", q35([](Qwen35Shape& s) { s.expertFeedForward = 256; }), c4096, 68.02},
        {"qwen35moe shexp 4096", q35([](Qwen35Shape& s) { s.sharedFeedForward = 4096; }), c4096, 80.02},
        {"qwen35moe 64 experts", q35([](Qwen35Shape& s) { s.experts = 64; }), c4096, 80.02},
        {"qwen35moe e4096 h32", q35([](Qwen35Shape& s) {
             s.embd = 4096;
             s.heads = 32;
         }),
         c4096, 132.02},
        {"qwen35moe inner 8192", q35([](Qwen35Shape& s) {
             s.inner = 8192;
             s.dtRank = 64;
         }),
         c4096, 80.02},
        {"qwen35moe inner 2048", q35([](Qwen35Shape& s) {
             s.inner = 2048;
             s.dtRank = 16;
             s.groups = 8;
         }),
         c4096, 80.02},
        {"qwen35moe u4 inner 8192", q35([](Qwen35Shape& s) {
             s.used = 4;
             s.inner = 8192;
             s.dtRank = 64;
         }),
         c4096, 76.40},
        {"qwen35moe u4 h32", q35([](Qwen35Shape& s) {
             s.used = 4;
             s.heads = 32;
         }),
         c4096, 88.02},
        {"qwen35moe h8 f128 64 experts", q35([](Qwen35Shape& s) {
             s.heads = 8;
             s.experts = 64;
             s.expertFeedForward = 128;
         }),
         c4096, 60.12},
        {"qwen35moe h8 u4 inner 2048", q35([](Qwen35Shape& s) {
             s.heads = 8;
             s.experts = 64;
             s.used = 4;
             s.inner = 2048;
             s.dtRank = 16;
             s.groups = 8;
         }),
         c4096, 52.02},
        {"qwen35 e2048 ff6144", q35(dense(2048, 16, 2, 6144)), c4096, 60.02},
        {"qwen35 e2048 ff6144 FA off", q35(dense(2048, 16, 2, 6144)), flags(4096, 1, faOff), 182.02},
        {"qwen35 e4096 ff12288", q35(dense(4096, 16, 4, 12288)), c4096, 116.02},
        {"qwen35 e4096 ff12288 FA off", q35(dense(4096, 16, 4, 12288)), flags(4096, 1, faOff), 196.02},
        {"qwen35 e1024 ff3584", q35([&](Qwen35Shape& s) {
             dense(1024, 8, 2, 3584)(s);
             s.inner = 2048;
             s.dtRank = 16;
         }),
         c4096, 39.02},
        {"qwen35 e1024 ff3584 FA off", q35([&](Qwen35Shape& s) {
             dense(1024, 8, 2, 3584)(s);
             s.inner = 2048;
             s.dtRank = 16;
         }),
         flags(4096, 1, faOff), 96.02},
        {"qwen3moe 30B-A3B shape", q3({2048, 32, 4, 128, 128, 8, 768}), c4096, 92.02},
        {"qwen3moe u4 f512", q3({2048, 32, 4, 128, 128, 4, 512}), c4096, 40.02},
        {"qwen3moe 235B shape", q3({4096, 64, 4, 128, 128, 8, 1536}), c4096, 180.02},
        {"qwen3moe gpt-oss-like", q3({2880, 64, 8, 64, 32, 4, 2880}), c4096, 99.64},
        {"qwen3moe u2 f1408", q3({2048, 16, 4, 128, 64, 2, 1408}), c4096, 40.52},
        {"qwen3moe u8 f128", q3({2048, 16, 4, 128, 64, 8, 128}), c4096, 56.02},
        {"qwen3moe u6 f512", q3({2048, 16, 4, 128, 64, 6, 512}), c4096, 66.02},
        {"qwen3moe u8 f256", q3({2048, 16, 4, 128, 64, 8, 256}), c4096, 56.02},
        {"qwen3moe u4 f1024", q3({2048, 16, 4, 128, 64, 4, 1024}), c4096, 48.02},
        {"gemma-3 FA off c8192 auto", test::gemma3_1B, flags(8192, std::nullopt, faOff), 100.27},
        {"gemma-3 FA off c8192 np1", test::gemma3_1B, flags(8192, 1, faOff), 97.27},
        {"gemma-3 FA off c8192 np4", test::gemma3_1B, flags(8192, 4, faOff), 59.77},
    };
    expectWithin(cases, 0.05, "moe/hybrid");
}

TEST(ComputeBuffer, KnownOutlierF32CacheWithFlashAttention) {
    // llama-graph.cpp casts an f32 K/V to f16 for ggml_flash_attn_ext; at c 4096 that pushes the
    // peak 4 MiB above the FFN's (76.02 logged), at c 16384 not at all (84.02). Not modelled: 5.3 % low.
    const Case c{"llama-1B f32 KV c4096", [] { return test::llama1B(); },
                 flags(4096, 1, cacheTypesFlags(GgmlType::F32)), 76.02};
    const double predicted = predictedMiB(c);
    EXPECT_NEAR(predicted, c.loggedMiB, c.loggedMiB * 0.06);
}

TEST(ComputeBuffer, MaskSlopeIsExact) {
    // B with FA: n_ubatch * 2 B per cell; without: n_ubatch * (4 * n_head + 4) B per cell.
    auto compute = [](std::uint32_t c, FlashAttention fa) {
        ServerSettings s = settingsFor(c, 1);
        s.flashAttention = fa;
        return estimateMemory(test::llama1B(), s)->totals.computeBytes;
    };
    EXPECT_EQ(compute(65536, FlashAttention::Auto) - compute(16384, FlashAttention::Auto),
              49152ull * 512 * 2);
    EXPECT_EQ(compute(65536, FlashAttention::Off) - compute(16384, FlashAttention::Off),
              49152ull * 512 * (4 * 32 + 4));
}

TEST(ComputeBuffer, CudaAddsF16CopiesOfAQuantizedCacheVulkanDoesNot) {
    const ModelInfo model = test::llama1B();
    const ResolvedContext ctx = resolveContext(model, settingsFor(32768, 1)).value();
    ServerSettings q8 = settingsFor(32768, 1);
    q8.cacheTypeK = GgmlType::Q8_0;
    q8.cacheTypeV = GgmlType::Q8_0;
    const KvPlan kv = sizeKvCaches(model, q8, ctx);
    const auto cuda = blockComputeBytes(model, q8, ctx, kv, {Backend::Cuda, 1, 0});
    const auto vulkan = blockComputeBytes(model, q8, ctx, kv, {Backend::Vulkan, 1, 0});
    EXPECT_EQ(cuda.gpuExtraBytes, 32768ull * (512 + 512) * 2);
    EXPECT_EQ(vulkan.gpuExtraBytes, 0u);
    EXPECT_EQ(cuda.totalBytes - vulkan.totalBytes, cuda.gpuExtraBytes);
    const auto f16 =
        blockComputeBytes(model, settingsFor(32768, 1), ctx, sizeKvCaches(model, settingsFor(32768, 1), ctx),
                          {Backend::Cuda, 1, 0});
    EXPECT_EQ(f16.gpuExtraBytes, 0u);
}

TEST(ComputeBuffer, PipelineCopiesAndOpOffload) {
    const ModelInfo model = test::llama1B();
    const ServerSettings s = settingsFor(16384, 1);
    const ResolvedContext ctx = resolveContext(model, s).value();
    const KvPlan kv = sizeKvCaches(model, s, ctx);
    const auto one = blockComputeBytes(model, s, ctx, kv, {Backend::Cuda, 1, 0});
    const auto four = blockComputeBytes(model, s, ctx, kv, {Backend::Cuda, 4, 0});
    EXPECT_EQ(four.maskBytes, 4 * one.maskBytes);
    const auto offload = blockComputeBytes(model, s, ctx, kv, {Backend::Cuda, 1, 100 * kMiB});
    EXPECT_EQ(offload.totalBytes - one.totalBytes, 100 * kMiB);
    // Two CUDA GPUs holding every layer: the engine replays pipeline parallelism (four copies of each
    // split input, llama-context.cpp), which a tensor override turns off: the second GPU's split
    // inputs (the hidden state it receives, the masks) then are held once.
    const std::uint64_t embeddingRow = 512ull * 2048 * 4;
    const std::vector<GpuDevice> gpus = {{"CUDA0", 24 * kGiB, Backend::Cuda, false, std::nullopt},
                                         {"CUDA1", 24 * kGiB, Backend::Cuda, false, std::nullopt}};
    auto split = estimateMemory(model, s, gpus);
    ASSERT_TRUE(split.ok());
    EXPECT_TRUE(split->computeApproximation.empty()) << split->computeApproximation;
    ServerSettings overridden = s;
    overridden.tensorOverrides = {{"^output_norm", "CUDA1"}};
    auto once = estimateMemory(model, overridden, gpus);
    ASSERT_TRUE(once.ok());
    EXPECT_GE(split->devices[1].bytes.computeBytes, once->devices[1].bytes.computeBytes + 3 * embeddingRow);
    // Partial offload: the engine replays op offload, the host blocks' ops running on the GPU with
    // each weight copied in for its one op (measured on Vulkan: llama -ngl 0, 88.00 MiB): with 32 MiB
    // f16 FFN matrices that is about the block plus one weight less the three input rows it finds free.
    ServerSettings partial = s;
    partial.gpuLayers = GpuLayers::count(5);
    auto part = estimateMemory(model, partial, {gpus[0]});
    ASSERT_TRUE(part.ok());
    EXPECT_TRUE(part->computeApproximation.empty()) << part->computeApproximation;
    EXPECT_NEAR(static_cast<double>(part->devices[1].bytes.computeBytes),
                static_cast<double>(one.totalBytes - embeddingRow + 2048ull * 8192 * 2 - 3 * embeddingRow),
                0.001 * static_cast<double>(part->devices[1].bytes.computeBytes));
}

} // namespace
} // namespace llamafit

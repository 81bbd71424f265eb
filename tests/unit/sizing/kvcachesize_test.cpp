// KV cache sizes against the b11669 log lines of llama-cpp-memory.md §2.2 and §7.
#include "core/sizing/estimator.h"
#include "tests/unit/sizing/estimatequery.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using test::kLogRoundingMiB;
using test::mib;

struct Flags {
    std::optional<std::uint32_t> c;
    std::optional<std::uint32_t> np;
    GgmlType k = GgmlType::F16;
    GgmlType v = GgmlType::F16;
    FlashAttention fa = FlashAttention::Auto;
    std::uint32_t ub = 512;
    bool swaFull = false;
};

MemoryEstimate estimate(const ModelInfo& model, const Flags& f) {
    ServerSettings s;
    s.contextTokens = f.c;
    s.parallelSlots = f.np;
    s.cacheTypeK = f.k;
    s.cacheTypeV = f.v;
    s.flashAttention = f.fa;
    s.ubatchTokens = f.ub;
    s.swaFull = f.swaFull;
    auto result = estimateMemory(model, s);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    return result.ok() ? result.value() : MemoryEstimate{};
}

double kvMiB(const MemoryEstimate& e) {
    return mib(e.totals.kvBytes);
}

TEST(KvCacheSize, Llama1BRowsOneToFive) {
    const ModelInfo model = test::llama1B();
    const MemoryEstimate row1 = estimate(model, {4096, 1});
    EXPECT_NEAR(kvMiB(row1), 128.00, kLogRoundingMiB);
    ASSERT_EQ(row1.kvCaches.size(), 1u);
    EXPECT_EQ(row1.kvCaches[0].cells, 4096u);
    EXPECT_EQ(row1.kvCaches[0].streams, 1u);
    EXPECT_EQ(row1.kvCaches[0].layers, 16u);

    const MemoryEstimate row2 = estimate(model, {4096, 4});
    EXPECT_NEAR(kvMiB(row2), 128.00, kLogRoundingMiB);
    EXPECT_EQ(row2.kvCaches[0].cells, 1024u);
    EXPECT_EQ(row2.kvCaches[0].streams, 4u);

    const MemoryEstimate row3 = estimate(model, {4096, std::nullopt});
    EXPECT_NEAR(kvMiB(row3), 128.00, kLogRoundingMiB);
    EXPECT_EQ(row3.kvCaches[0].cells, 4096u);
    EXPECT_EQ(row3.kvCaches[0].streams, 1u);

    EXPECT_NEAR(kvMiB(estimate(model, {5000, 1})), 160.00, kLogRoundingMiB);
    const MemoryEstimate row5 = estimate(model, {10000, 3});
    EXPECT_NEAR(kvMiB(row5), 336.00, kLogRoundingMiB);
    EXPECT_EQ(row5.kvCaches[0].cells, 3584u);
    EXPECT_EQ(row5.kvCaches[0].streams, 3u);
}

TEST(KvCacheSize, Llama1BCacheTypesRowSix) {
    const ModelInfo model = test::llama1B();
    const std::vector<std::pair<GgmlType, double>> measured = {
        {GgmlType::F32, 256},   {GgmlType::F16, 128}, {GgmlType::BF16, 128},
        {GgmlType::Q8_0, 68},   {GgmlType::Q4_0, 36}, {GgmlType::Q4_1, 40},
        {GgmlType::IQ4_NL, 36}, {GgmlType::Q5_0, 44}, {GgmlType::Q5_1, 48}};
    for (const auto& [type, logged] : measured) {
        EXPECT_NEAR(kvMiB(estimate(model, {4096, 1, type, type})), logged, kLogRoundingMiB)
            << ggmlTypeName(type);
    }
}

TEST(KvCacheSize, QuantizedVAloneRowSeven) {
    // -ctv q8_0: "enabling flash_attn since it is required for quantized V cache", K f16 64 + V q8_0 34.
    const MemoryEstimate e = estimate(test::llama1B(), {4096, 1, GgmlType::F16, GgmlType::Q8_0});
    EXPECT_TRUE(e.context.flashAttention);
    EXPECT_NEAR(mib(e.kvCaches[0].kBytes), 64.00, kLogRoundingMiB);
    EXPECT_NEAR(mib(e.kvCaches[0].vBytes), 34.00, kLogRoundingMiB);
    EXPECT_NEAR(kvMiB(e), 98.00, kLogRoundingMiB);
}

TEST(KvCacheSize, HeadDim80QuantizedKWithFlashAttentionOffRowThirteen) {
    const MemoryEstimate e =
        estimate(test::llamaHeadDim80(), {4096, 1, GgmlType::Q4_0, GgmlType::F16, FlashAttention::Off});
    EXPECT_NEAR(mib(e.kvCaches[0].kBytes), 5.62, kLogRoundingMiB);
    EXPECT_NEAR(mib(e.kvCaches[0].vBytes), 20.00, kLogRoundingMiB);
    EXPECT_NEAR(kvMiB(e), 25.62, kLogRoundingMiB);
}

TEST(KvCacheSize, Llama3_8BAt32kByCacheType) {
    // Seed article 003's 4.0 / 2.0 / 1.0 GB are really 4096 / 2176 / 1152 MiB (q8_0 is 34 B per 32 values).
    const ModelInfo model = test::llama3_8B();
    EXPECT_NEAR(kvMiB(estimate(model, {32768, 1})), 4096.00, kLogRoundingMiB);
    EXPECT_NEAR(kvMiB(estimate(model, {32768, 1, GgmlType::Q8_0, GgmlType::Q8_0})), 2176.00, kLogRoundingMiB);
    EXPECT_NEAR(kvMiB(estimate(model, {32768, 1, GgmlType::Q4_0, GgmlType::Q4_0})), 1152.00, kLogRoundingMiB);
}

TEST(KvCacheSize, Qwen35OnlyAttentionLayersHoldKv) {
    const ModelInfo model = test::qwen35_35B_A3B();
    const MemoryEstimate at4k = estimate(model, {4096, std::nullopt});
    EXPECT_NEAR(kvMiB(at4k), 80.00, kLogRoundingMiB);
    ASSERT_EQ(at4k.kvCaches.size(), 1u);
    EXPECT_EQ(at4k.kvCaches[0].layers, 10u);
    EXPECT_EQ(at4k.kvCaches[0].cells, 4096u);
    EXPECT_NEAR(kvMiB(estimate(model, {32768, std::nullopt})), 640.00, kLogRoundingMiB);
    EXPECT_NEAR(kvMiB(estimate(model, {65536, std::nullopt, GgmlType::Q8_0, GgmlType::Q8_0})), 680.00,
                kLogRoundingMiB);
    // Row 16: -np 4 -> 8192 cells x 4 streams, the same 640 MiB.
    const MemoryEstimate separate = estimate(model, {32768, 4});
    EXPECT_NEAR(kvMiB(separate), 640.00, kLogRoundingMiB);
    EXPECT_EQ(separate.kvCaches[0].cells, 8192u);
    EXPECT_EQ(separate.kvCaches[0].streams, 4u);
}

TEST(KvCacheSize, Gemma3SlidingWindowRowsSeventeenAndEighteen) {
    const ModelInfo model = test::gemma3_1B();
    const MemoryEstimate row17 = estimate(model, {8192, std::nullopt});
    ASSERT_EQ(row17.kvCaches.size(), 2u);
    EXPECT_FALSE(row17.kvCaches[0].swa);
    EXPECT_EQ(row17.kvCaches[0].cells, 8192u);
    EXPECT_EQ(row17.kvCaches[0].layers, 4u);
    EXPECT_NEAR(mib(row17.kvCaches[0].kBytes + row17.kvCaches[0].vBytes), 32.00, kLogRoundingMiB);
    EXPECT_TRUE(row17.kvCaches[1].swa);
    EXPECT_EQ(row17.kvCaches[1].cells, 2560u); // pad(512 * 4 + 512)
    EXPECT_EQ(row17.kvCaches[1].layers, 22u);
    EXPECT_NEAR(mib(row17.kvCaches[1].kBytes + row17.kvCaches[1].vBytes), 55.00, kLogRoundingMiB);

    auto swaMiB = [](const MemoryEstimate& e) { return mib(e.kvCaches[1].kBytes + e.kvCaches[1].vBytes); };
    auto fullMiB = [](const MemoryEstimate& e) { return mib(e.kvCaches[0].kBytes + e.kvCaches[0].vBytes); };
    const MemoryEstimate np4 = estimate(model, {8192, 4});
    EXPECT_EQ(np4.kvCaches[1].cells, 1024u);
    EXPECT_EQ(np4.kvCaches[1].streams, 4u);
    EXPECT_NEAR(swaMiB(np4), 88.00, kLogRoundingMiB);
    EXPECT_NEAR(fullMiB(np4), 32.00, kLogRoundingMiB);
    EXPECT_NEAR(swaMiB(estimate(model, {8192, 1})), 22.00, kLogRoundingMiB);
    Flags swaFull{8192, 1};
    swaFull.swaFull = true;
    const MemoryEstimate full = estimate(model, swaFull);
    EXPECT_EQ(full.kvCaches[1].cells, 8192u);
    EXPECT_NEAR(swaMiB(full), 176.00, kLogRoundingMiB);
    Flags bigUbatch{8192, std::nullopt};
    bigUbatch.ub = 2048;
    const MemoryEstimate ub2048 = estimate(model, bigUbatch);
    EXPECT_EQ(ub2048.kvCaches[1].cells, 4096u);
    EXPECT_NEAR(swaMiB(ub2048), 88.00, kLogRoundingMiB);
    const MemoryEstimate small = estimate(model, {1000, 1});
    EXPECT_EQ(small.kvCaches[0].cells, 1024u);
    EXPECT_NEAR(fullMiB(small), 4.00, kLogRoundingMiB);
    EXPECT_EQ(small.kvCaches[1].cells, 1024u);
    EXPECT_NEAR(swaMiB(small), 22.00, kLogRoundingMiB);
}

TEST(KvCacheSize, MlaCachesOnlyTheLatent) {
    // llama-kv-cache.cpp: has_v = !is_mla; K is 576 wide per layer.
    const ModelInfo model = test::deepseekMlaLite();
    const MemoryEstimate e = estimate(model, {4096, 1, GgmlType::Q8_0, GgmlType::Q8_0});
    EXPECT_EQ(e.kvCaches[0].vBytes, 0u);
    EXPECT_EQ(e.kvCaches[0].kBytes, 27ull * 4096 * ggmlRowBytes(GgmlType::Q8_0, 576));
}

TEST(KvCacheSize, TransposedVIsPaddedToTheWidestLayer) {
    // [TAG_V_CACHE_VARIABLE]: without FA every layer's V is n_embd_v_gqa_max wide.
    ModelInfo model = test::llama1B();
    model.layers[0].headCountKv = 16;
    const MemoryEstimate fa = estimate(model, {4096, 1});
    const MemoryEstimate noFa = estimate(model, {4096, 1, GgmlType::F16, GgmlType::F16, FlashAttention::Off});
    const std::uint64_t row = 4096ull * 2; // cells x f16
    EXPECT_EQ(fa.kvCaches[0].vBytes, row * (16 * 64 + 15 * 8 * 64));
    EXPECT_EQ(noFa.kvCaches[0].vBytes, row * 16 * 16 * 64);
    EXPECT_EQ(fa.kvCaches[0].kBytes, noFa.kvCaches[0].kBytes);
}

} // namespace
} // namespace llamafit

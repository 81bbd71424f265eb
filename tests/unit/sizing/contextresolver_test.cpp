// resolveContext(): llama-server 0.7.0's context resolution (§7 rows 1-5 of llama-cpp-memory.md).
#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ServerSettings withContext(std::optional<std::uint32_t> c, std::optional<std::uint32_t> np = std::nullopt) {
    ServerSettings s;
    s.contextTokens = c;
    s.parallelSlots = np;
    return s;
}

TEST(ContextResolver, PadsTheContextTo256) {
    // Row 4: -c 5000 -np 1 -> n_ctx 5120.
    auto ctx = resolveContext(test::llama1B(), withContext(5000, 1));
    ASSERT_TRUE(ctx.ok());
    EXPECT_EQ(ctx->nCtx, 5120u);
    EXPECT_EQ(ctx->nCtxSeq, 5120u);
    EXPECT_FALSE(ctx->kvUnified);
}

TEST(ContextResolver, SplitsAndPadsPerSequenceWhenNotUnified) {
    // Row 5: -c 10000 -np 3 -> "rounding down to 10752", n_ctx_seq 3584.
    auto ctx = resolveContext(test::llama1B(), withContext(10000, 3));
    ASSERT_TRUE(ctx.ok());
    EXPECT_EQ(ctx->nCtxSeq, 3584u);
    EXPECT_EQ(ctx->nCtx, 10752u);
    EXPECT_EQ(ctx->nSeqMax, 3u);
    EXPECT_FALSE(ctx->kvUnified);
}

TEST(ContextResolver, AutoSlotsAreFourSharingOneCache) {
    // Row 3: -c 4096 with -np unset -> 4 slots, kv_unified = true, n_ctx_seq = n_ctx.
    auto ctx = resolveContext(test::llama1B(), withContext(4096));
    ASSERT_TRUE(ctx.ok());
    EXPECT_EQ(ctx->nSeqMax, 4u);
    EXPECT_TRUE(ctx->kvUnified);
    EXPECT_EQ(ctx->nCtxSeq, 4096u);
    EXPECT_EQ(ctx->nOutputs, 4u);
}

TEST(ContextResolver, ExplicitSlotsAreSeparateUnlessKvUnifiedIsSet) {
    // Row 2: -c 4096 -np 4 -> n_ctx_seq 1024.
    auto separate = resolveContext(test::llama1B(), withContext(4096, 4));
    ASSERT_TRUE(separate.ok());
    EXPECT_EQ(separate->nCtxSeq, 1024u);
    ServerSettings unified = withContext(4096, 4);
    unified.kvUnified = true;
    auto shared = resolveContext(test::llama1B(), unified);
    ASSERT_TRUE(shared.ok());
    EXPECT_TRUE(shared->kvUnified);
    EXPECT_EQ(shared->nCtxSeq, 4096u);
    ServerSettings forcedOff = withContext(4096, 4);
    forcedOff.kvUnified = false;
    auto split = resolveContext(test::llama1B(), forcedOff);
    ASSERT_TRUE(split.ok());
    EXPECT_FALSE(split->kvUnified);
    EXPECT_EQ(split->nCtxSeq, 1024u);
}

TEST(ContextResolver, AutoSlotsStayUnifiedEvenWithNoKvUnified) {
    // tools/server/server.cpp sets kv_unified = true after parsing when -np is auto, so
    // "-c 4096 -no-kvu" still logs 4096 cells in one cache (measured on 0.7.0).
    ServerSettings noKvu = withContext(4096);
    noKvu.kvUnified = false;
    auto ctx = resolveContext(test::llama1B(), noKvu);
    ASSERT_TRUE(ctx.ok());
    EXPECT_EQ(ctx->nSeqMax, 4u);
    EXPECT_TRUE(ctx->kvUnified);
    EXPECT_EQ(ctx->nCtxSeq, 4096u);
    EXPECT_EQ(ctx->nCtx, 4096u);
}

TEST(ContextResolver, UnsetOrZeroContextMeansTrainingContext) {
    const ModelInfo model = test::llama1B();
    for (auto c : {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>{0}}) {
        auto ctx = resolveContext(model, withContext(c, 1));
        ASSERT_TRUE(ctx.ok());
        EXPECT_EQ(ctx->nCtx, model.trainingContext);
    }
}

TEST(ContextResolver, BatchAndUbatchAreCappedByTheUnpaddedContext) {
    // llama-context.cpp takes n_batch = min(n_ctx, n_batch) before padding n_ctx.
    auto small = resolveContext(test::llama1B(), withContext(300, 1));
    ASSERT_TRUE(small.ok());
    EXPECT_EQ(small->nCtx, 512u);
    EXPECT_EQ(small->nBatch, 300u);
    EXPECT_EQ(small->nUbatch, 300u);
    ServerSettings big = withContext(4096, 1);
    big.ubatchTokens = 4096;
    auto ctx = resolveContext(test::llama1B(), big);
    ASSERT_TRUE(ctx.ok());
    EXPECT_EQ(ctx->nBatch, 2048u);
    EXPECT_EQ(ctx->nUbatch, 2048u);
}

TEST(ContextResolver, FlashAttentionAutoIsOnAndOffStaysOff) {
    ServerSettings s = withContext(4096, 1);
    EXPECT_TRUE(resolveContext(test::llama1B(), s)->flashAttention);
    s.flashAttention = FlashAttention::Off;
    EXPECT_FALSE(resolveContext(test::llama1B(), s)->flashAttention);
}

TEST(ContextResolver, RejectsZeroSlotsAndZeroUbatch) {
    auto zeroSlots = resolveContext(test::llama1B(), withContext(4096, 0));
    ASSERT_FALSE(zeroSlots.ok());
    EXPECT_EQ(zeroSlots.error().code, "settings.bad-value");
    ServerSettings s = withContext(4096, 1);
    s.ubatchTokens = 0;
    auto zeroUbatch = resolveContext(test::llama1B(), s);
    ASSERT_FALSE(zeroUbatch.ok());
    EXPECT_EQ(zeroUbatch.error().code, "settings.bad-value");
}

} // namespace
} // namespace llamafit

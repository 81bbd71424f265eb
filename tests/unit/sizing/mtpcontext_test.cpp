// MTP / NextN sizing rules (core/sizing/mtpcontext.h) on the sparse Qwen3.5-35B-A3B shape with its
// NextN block: what changes with --spec-type draft-mtp, and the refusal on a model without NextN
// blocks. The exact figures are held against the real server by tests/unit/recorded (mtp-b11669).
#include "core/sizing/estimator.h"
#include "core/sizing/mtpcontext.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ServerSettings mtpSettings(std::uint32_t slots) {
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = slots;
    settings.repack = false;
    settings.speculative.types = {SpeculativeType::DraftMtp};
    return settings;
}

TEST(MtpContext, DraftMtpLoadsTheNextnBlockAndAddsRsRowsAndADraftContext) {
    const ModelInfo model = test::interpretedShape("mtp/qwen35moe-mtp.json");
    ASSERT_EQ(model.nextnLayerCount, 1u);
    ServerSettings plain = mtpSettings(2);
    plain.speculative.types.clear();
    const auto without = estimateMemory(model, plain, {});
    const auto with = estimateMemory(model, mtpSettings(2), {});
    ASSERT_TRUE(without.ok() && with.ok());
    // The NextN block's tensors load only for the draft context.
    EXPECT_GT(with->totals.modelBytes, without->totals.modelBytes);
    EXPECT_EQ(with->totals.modelBytes, model.weightBytes());
    EXPECT_EQ(without->totals.modelBytes, withoutNextnTensors(model).weightBytes());
    // (1 + n_rs_seq) rows per sequence: the default draft.n_max is 3.
    EXPECT_EQ(with->rs.rsSeq, 3u);
    EXPECT_EQ(with->rs.rBytes + with->rs.sBytes, 4 * (without->rs.rBytes + without->rs.sBytes));
    EXPECT_EQ(with->context.nOutputs, 2u * 4u);
    ASSERT_TRUE(with->mtp.has_value());
    EXPECT_FALSE(without->mtp.has_value());
    EXPECT_EQ(with->mtp->kv.layers, 1u);
    EXPECT_EQ(with->mtp->context.nRsSeq, 0u);
    std::size_t draftBuffers = 0;
    for (const BufferEstimate& buffer : with->devices.front().buffers) {
        draftBuffers += buffer.owner == BufferOwner::MtpDraft ? 1 : 0;
    }
    EXPECT_EQ(draftBuffers, 3u); // output, KV, compute
}

std::uint64_t draftComputeBytes(const MemoryEstimate& estimate) {
    for (const BufferEstimate& buffer : estimate.devices.front().buffers) {
        if (buffer.owner == BufferOwner::MtpDraft && buffer.component == Component::Compute) {
            return buffer.bytes;
        }
    }
    return 0;
}

// The byte counts ggml-alloc chose for the MTP draft context's graph in llama-server 0.7.0
// (b11669), read from the server with scripts/alloc-plan/allocdump.c (ggml_gallocr_get_buffer_size
// after the reserve), on this shape: the graph replay (core/sizing/mtpgraph.h) must land on them.
TEST(MtpContext, TheDraftComputeBufferIsTheServersOwnPlanToTheByte) {
    const ModelInfo model = test::interpretedShape("mtp/qwen35moe-mtp.json");
    struct Case {
        std::uint32_t context;
        std::uint32_t slots;
        FlashAttention flash;
        std::uint64_t plannedBytes;
    };
    for (const Case& c :
         {Case{4096, 1, FlashAttention::Auto, 68175904}, Case{4096, 1, FlashAttention::Off, 178272288},
          Case{12288, 3, FlashAttention::Auto, 68309152}, Case{8192, 4, FlashAttention::Auto, 69224480}}) {
        ServerSettings settings = mtpSettings(c.slots);
        settings.contextTokens = c.context;
        settings.flashAttention = c.flash;
        const auto estimate = estimateMemory(model, settings, {});
        ASSERT_TRUE(estimate.ok()) << estimate.error().message;
        EXPECT_EQ(draftComputeBytes(*estimate), c.plannedBytes) << "-c " << c.context << " -np " << c.slots;
    }
}

TEST(MtpContext, TheDraftKvIgnoresTheMainCacheTypes) {
    const ModelInfo model = test::interpretedShape("mtp/qwen35moe-mtp.json");
    ServerSettings settings = mtpSettings(1);
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    const auto estimate = estimateMemory(model, settings, {});
    ASSERT_TRUE(estimate.ok());
    EXPECT_EQ(estimate->kvCaches.front().typeK, GgmlType::Q8_0);
    EXPECT_EQ(estimate->mtp->kv.typeK, GgmlType::F16);
}

TEST(MtpContext, DraftMtpWithoutNextnBlocksIsRefusedNamingTheSetting) {
    const ModelInfo model = test::interpretedShape("qwen35moe.json");
    const auto refused = estimateMemory(model, mtpSettings(1), {});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "settings.unsupported");
    EXPECT_EQ(refused.error().settings, std::vector<Setting>{Setting::SpeculativeType});
    EXPECT_EQ(refused.error().flag, "--spec-type");
}

} // namespace
} // namespace llamafit

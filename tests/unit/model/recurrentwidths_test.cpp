// n_embd_r / n_embd_s per recurrent family (llama.cpp src/llama-hparams.cpp).
#include "core/model/recurrentwidths.h"
#include "tests/support/ggufbuilder.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using test::GgufBuilder;

RecurrentWidths widths(RecurrentState state, const GgufBuilder& b, RecurrentWidthsInput input) {
    const GgufFile file = b.build();
    const ArchKeys keys(file, "arch");
    auto result = computeRecurrentWidths(state, keys, input);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    return result.ok() ? result.value() : RecurrentWidths{};
}

GgufBuilder ssm(std::uint32_t conv, std::uint32_t inner, std::uint32_t state, std::uint32_t groups) {
    GgufBuilder b("arch");
    b.setUint32("arch.ssm.conv_kernel", conv).setUint32("arch.ssm.inner_size", inner);
    b.setUint32("arch.ssm.state_size", state).setUint32("arch.ssm.group_count", groups);
    return b;
}

TEST(RecurrentWidths, GatedDeltaNetOfQwen35) {
    // Qwen3.5-35B-A3B (llama-cpp-memory.md §2.3): conv 4, inner 4096, state 128, 16 groups.
    const auto w = widths(RecurrentState::Mamba2, ssm(4, 4096, 128, 16), {2048, 16, 256});
    EXPECT_EQ(w.convWidth, 24576u);
    EXPECT_EQ(w.stateWidth, 524288u);
    EXPECT_EQ(w.ssmGroupCount, 16u);
}

TEST(RecurrentWidths, Qwen35_122bA10b) {
    // §2.3: inner 8192 (64 v-heads x 128), 16 k-heads, 36 recurrent layers -> 149.06 MiB per slot.
    const auto w = widths(RecurrentState::Mamba2, ssm(4, 8192, 128, 16), {3072, 32, 256});
    EXPECT_EQ((w.convWidth + w.stateWidth) * 4 * 36, 156303360u); // 149.0625 MiB
}

TEST(RecurrentWidths, MambaOneHasNoGroups) {
    const auto w = widths(RecurrentState::Mamba1, ssm(4, 1536, 16, 8), {768, 0, 0});
    EXPECT_EQ(w.convWidth, 3u * 1536);
    EXPECT_EQ(w.stateWidth, 16u * 1536);
    EXPECT_EQ(w.ssmGroupCount, 0u);
}

TEST(RecurrentWidths, MissingSsmKeyIsAMissingKey) {
    GgufBuilder b("arch");
    b.setUint32("arch.ssm.conv_kernel", 4)
        .setUint32("arch.ssm.inner_size", 4096)
        .setUint32("arch.ssm.state_size", 128);
    const GgufFile file = b.build();
    const ArchKeys keys(file, "arch");
    const auto result = computeRecurrentWidths(RecurrentState::Mamba2, keys, {2048, 16, 128});
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "model.missing-key");
    EXPECT_NE(result.error().message.find("arch.ssm.group_count"), std::string::npos);
}

TEST(RecurrentWidths, RwkvTokenShiftAndWkvState) {
    GgufBuilder b("arch");
    b.setUint32("arch.wkv.head_size", 64);
    auto w = widths(RecurrentState::Rwkv, b, {2560, 0, 0});
    EXPECT_EQ(w.convWidth, 2u * 2560);
    EXPECT_EQ(w.stateWidth, 2560u * 64);

    b.setUint32("arch.token_shift_count", 1);
    w = widths(RecurrentState::Rwkv, b, {2560, 0, 0});
    EXPECT_EQ(w.convWidth, 2560u);
}

TEST(RecurrentWidths, ShortConvOfLfm2) {
    GgufBuilder b("arch");
    b.setUint32("arch.shortconv.l_cache", 3);
    const auto w = widths(RecurrentState::ShortConv, b, {1024, 16, 64});
    EXPECT_EQ(w.convWidth, 2048u);
    EXPECT_EQ(w.stateWidth, 0u);
}

TEST(RecurrentWidths, KimiDeltaAttention) {
    // Kimi-Linear: 32 heads x head_dim 128, conv 4 -> r = 3*3*4096, s = 128*128*32.
    GgufBuilder b("arch");
    b.setUint32("arch.ssm.conv_kernel", 4).setUint32("arch.kda.head_dim", 128);
    const auto w = widths(RecurrentState::Kda, b, {2304, 32, 192});
    EXPECT_EQ(w.convWidth, 36864u);
    EXPECT_EQ(w.stateWidth, 524288u);
}

TEST(RecurrentWidths, NoneIsZero) {
    const auto w = widths(RecurrentState::None, GgufBuilder("arch"), {4096, 32, 128});
    EXPECT_EQ(w.convWidth, 0u);
    EXPECT_EQ(w.stateWidth, 0u);
}

} // namespace
} // namespace llamafit

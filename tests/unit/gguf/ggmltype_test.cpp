// The ggml type table against llama-cpp-memory.md §2.1 (read from Debian's libggml-base
// with ggml_type_size / ggml_blck_size) and the type ids of ggml/include/ggml.h.

#include "core/gguf/ggmltype.h"

#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <string>

namespace llamafit {
namespace {

struct ExpectedType {
    std::uint32_t id;    // ggml/include/ggml.h enum ggml_type
    const char* name;    // as llama.cpp prints it
    std::uint32_t block; // ggml_blck_size
    std::uint32_t bytes; // ggml_type_size
};

// Copied by hand from the reference document, not from the code under test.
constexpr std::array<ExpectedType, 35> kExpected = {{
    {0, "f32", 1, 4},         {1, "f16", 1, 2},         {2, "q4_0", 32, 18},      {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},      {8, "q8_0", 32, 34},      {9, "q8_1", 32, 36},
    {10, "q2_K", 256, 84},    {11, "q3_K", 256, 110},   {12, "q4_K", 256, 144},   {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210},   {15, "q8_K", 256, 292},   {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},   {20, "iq4_nl", 32, 18},   {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},   {23, "iq4_xs", 256, 136}, {24, "i8", 1, 1},         {25, "i16", 1, 2},
    {26, "i32", 1, 4},        {27, "i64", 1, 8},        {28, "f64", 1, 8},        {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},       {34, "tq1_0", 256, 54},   {35, "tq2_0", 256, 66},   {39, "mxfp4", 32, 17},
    {40, "nvfp4", 64, 36},    {41, "q1_0", 128, 18},    {42, "q2_0", 64, 18},
}};

TEST(GgmlType, EveryTypeMatchesTheReferenceTable) {
    for (const auto& expected : kExpected) {
        SCOPED_TRACE(expected.name);
        const auto traits = ggmlTypeTraits(expected.id);
        ASSERT_TRUE(traits.ok()) << traits.error().message;
        EXPECT_EQ(traits->name, expected.name);
        EXPECT_EQ(traits->blockSize, expected.block);
        EXPECT_EQ(traits->bytesPerBlock, expected.bytes);
        EXPECT_EQ(static_cast<std::uint32_t>(traits->type), expected.id);
        EXPECT_EQ(traits->quantized, expected.block > 1);
        EXPECT_EQ(ggmlTypeTraits(traits->type), *traits);
    }
}

TEST(GgmlType, RemovedIdsAreNamedAsRemoved) {
    for (std::uint32_t id : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u}) {
        const auto traits = ggmlTypeTraits(id);
        ASSERT_FALSE(traits.ok()) << id;
        EXPECT_EQ(traits.error().code, "gguf.removed-tensor-type") << id;
    }
}

TEST(GgmlType, IdsPastTheTableAreUnknown) {
    for (std::uint32_t id : {43u, 44u, 100u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
        const auto traits = ggmlTypeTraits(id);
        ASSERT_FALSE(traits.ok()) << id;
        EXPECT_EQ(traits.error().code, "gguf.unknown-tensor-type") << id;
    }
}

TEST(GgmlType, EveryIdBelow43IsKnownOrRemoved) {
    int known = 0;
    for (std::uint32_t id = 0; id < 43; ++id) {
        const auto traits = ggmlTypeTraits(id);
        if (traits.ok()) {
            ++known;
        } else {
            EXPECT_EQ(traits.error().code, "gguf.removed-tensor-type") << id;
        }
    }
    EXPECT_EQ(known, static_cast<int>(kExpected.size()));
}

TEST(GgmlType, NamesRoundTripInAnyCase) {
    for (const auto& expected : kExpected) {
        const auto type = static_cast<GgmlType>(expected.id);
        EXPECT_EQ(ggmlTypeName(type), expected.name);
        EXPECT_EQ(ggmlTypeFromName(expected.name), type) << expected.name;
        std::string upper = expected.name;
        for (auto& c : upper) {
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        EXPECT_EQ(ggmlTypeFromName(upper), type) << upper;
    }
    EXPECT_FALSE(ggmlTypeFromName("q4_0_4_4").has_value());
    EXPECT_FALSE(ggmlTypeFromName("").has_value());
    EXPECT_FALSE(ggmlTypeFromName("q8").has_value());
}

TEST(GgmlType, RowBytesFollowBlocks) {
    EXPECT_EQ(ggmlRowBytes(GgmlType::Q8_0, 4096), 4352u); // 128 blocks of 34 bytes
    EXPECT_EQ(ggmlRowBytes(GgmlType::Q4_K, 4096), 2304u); // 16 blocks of 144 bytes
    EXPECT_EQ(ggmlRowBytes(GgmlType::Q6_K, 5120), 4200u); // 20 blocks of 210 bytes
    EXPECT_EQ(ggmlRowBytes(GgmlType::F32, 7), 28u);
    EXPECT_EQ(ggmlRowBytes(GgmlType::BF16, 4096), 8192u);
    EXPECT_EQ(ggmlRowBytes(GgmlType::MXFP4, 2880), 1530u); // gpt-oss rows: 90 blocks of 17 bytes
    EXPECT_TRUE(ggmlRowDivisible(GgmlType::Q8_0, 4096));
    EXPECT_FALSE(ggmlRowDivisible(GgmlType::Q4_0, 33));
    EXPECT_FALSE(ggmlRowDivisible(GgmlType::Q4_K, 4000));
    EXPECT_TRUE(ggmlRowDivisible(GgmlType::F16, 3));
}

} // namespace
} // namespace llamafit

// Hand-made broken GGUF files, one per TEST, each written to disk and read with
// readGgufFile. Every one must fail with its named error code (and parseGguf on the same
// bytes must agree), never crash, hang or allocate for a count it has not checked.

#include "core/gguf/ggufreader.h"

#include "tests/unit/gguf/rawgguf.h"
#include "tests/unit/gguf/scratchdir.h"

#include <gtest/gtest.h>

#include <string>

namespace llamafit {
namespace {

using test::RawGguf;

constexpr std::uint32_t kF32 = 0;
constexpr std::uint32_t kQ4_0 = 2;
constexpr std::uint32_t kTypeU32 = 4;
constexpr std::uint32_t kTypeString = 8;
constexpr std::uint32_t kTypeArray = 9;
constexpr std::uint32_t kTypeU64 = 10;

// One key, one f32 tensor of 32 values (128 bytes) and its data: a valid file that the
// tests below break in one place each.
RawGguf validFile(std::uint64_t dataBytes = 128) {
    RawGguf raw;
    raw.header(3, 1, 1).kvString("general.architecture", "llama").tensor("w", {32}, kF32, 0).padTo(32);
    raw.zeros(dataBytes);
    return raw;
}

class GgufCorrupt : public ::testing::Test {
  protected:
    Error errorOf(const RawGguf& raw, const GgufReadLimits& limits = {}) {
        EXPECT_TRUE(m_dir.valid());
        const std::string path = m_dir.write("corrupt.gguf", raw.bytes());
        const auto fromFile = readGgufFile(path, limits);
        if (fromFile.ok()) {
            ADD_FAILURE() << "a corrupt file parsed";
            return {};
        }
        const auto fromMemory = parseGguf(raw.bytes(), raw.size(), limits);
        EXPECT_FALSE(fromMemory.ok());
        if (!fromMemory.ok()) {
            EXPECT_EQ(fromMemory.error().code, fromFile.error().code);
        }
        EXPECT_FALSE(fromFile.error().message.empty());
        // Read in 16-byte steps, the parser resumes many times and must end at the same error.
        GgufReadLimits smallReads = limits;
        smallReads.initialReadBytes = 16;
        const auto fromSmallReads = readGgufFile(path, smallReads);
        EXPECT_FALSE(fromSmallReads.ok());
        if (!fromSmallReads.ok()) {
            EXPECT_EQ(fromSmallReads.error().code, fromFile.error().code);
        }
        return fromFile.error();
    }

    test::ScratchDir m_dir;
};

TEST_F(GgufCorrupt, TheUnbrokenFileParses) {
    const std::string path = m_dir.write("valid.gguf", validFile().bytes());
    const auto read = readGgufFile(path);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->tensors.at(0).bytes, 128u);
}

TEST_F(GgufCorrupt, EmptyFile) {
    EXPECT_EQ(errorOf(RawGguf()).code, "gguf.truncated");
}

TEST_F(GgufCorrupt, MagicCutShort) {
    EXPECT_EQ(errorOf(RawGguf().u16(0x4747)).code, "gguf.truncated");
}

TEST_F(GgufCorrupt, BadMagic) {
    EXPECT_EQ(errorOf(RawGguf().u32(0x4C4D4747).u32(3).u64(0).u64(0)).code, "gguf.bad-magic");
}

TEST_F(GgufCorrupt, Version1) {
    EXPECT_EQ(errorOf(RawGguf().header(1, 0, 0)).code, "gguf.unsupported-version");
}

TEST_F(GgufCorrupt, Version99) {
    EXPECT_EQ(errorOf(RawGguf().header(99, 0, 0)).code, "gguf.unsupported-version");
}

TEST_F(GgufCorrupt, Version0) {
    EXPECT_EQ(errorOf(RawGguf().header(0, 0, 0)).code, "gguf.unsupported-version");
}

TEST_F(GgufCorrupt, ByteSwappedVersion) {
    const Error error = errorOf(RawGguf().header(0x03000000, 0, 0));
    EXPECT_EQ(error.code, "gguf.unsupported-version");
    EXPECT_NE(error.message.find("big-endian"), std::string::npos) << error.message;
}

TEST_F(GgufCorrupt, TruncatedInHeader) {
    EXPECT_EQ(errorOf(RawGguf().u32(0x46554747).u32(3).u64(0).u32(0)).code, "gguf.truncated");
}

TEST_F(GgufCorrupt, TruncatedInKeyLength) {
    RawGguf raw;
    raw.header(3, 0, 2).kvU32("general.quantization_version", 2).u32(12); // half of the 2nd key's length
    EXPECT_EQ(errorOf(raw).code, "gguf.truncated");
}

TEST_F(GgufCorrupt, KeyLongerThanFile) {
    RawGguf raw;
    raw.header(3, 0, 1).u64(40).zeros(20); // key of 40 bytes, 20 left
    EXPECT_EQ(errorOf(raw).code, "gguf.string-too-long");
}

TEST_F(GgufCorrupt, TruncatedInValue) {
    RawGguf raw;
    raw.header(3, 0, 1).str("general.size").u32(kTypeU64).u32(0); // 4 of the 8 value bytes
    EXPECT_EQ(errorOf(raw).code, "gguf.truncated");
}

TEST_F(GgufCorrupt, TruncatedInStringArray) {
    RawGguf raw;
    raw.header(3, 0, 1).str("tokenizer.ggml.tokens").u32(kTypeArray).u32(kTypeString).u64(3);
    raw.str("first-token").str("second-token").u32(5); // the third length is cut
    EXPECT_EQ(errorOf(raw).code, "gguf.truncated");
}

TEST_F(GgufCorrupt, TruncatedInTensorInfo) {
    RawGguf raw;
    raw.header(3, 1, 1).kvString("general.name", std::string(100, 'n'));
    raw.str("w").u32(2).u64(32); // the second dimension is missing
    EXPECT_EQ(errorOf(raw).code, "gguf.truncated");
}

TEST_F(GgufCorrupt, AbsurdTensorCount) {
    EXPECT_EQ(errorOf(RawGguf().header(3, 1ull << 40, 0).zeros(64)).code, "gguf.absurd-count");
}

TEST_F(GgufCorrupt, AbsurdKvCount) {
    EXPECT_EQ(errorOf(RawGguf().header(3, 0, ~0ull).zeros(64)).code, "gguf.absurd-count");
}

TEST_F(GgufCorrupt, KvCountTooLargeForWhatTheTensorsLeave) {
    // 40 bytes left: one tensor info (32 at least) leaves room for no key/value (13 at least).
    EXPECT_EQ(errorOf(RawGguf().header(3, 1, 1).zeros(40)).code, "gguf.absurd-count");
}

TEST_F(GgufCorrupt, AbsurdArrayLength) {
    RawGguf raw;
    raw.header(3, 0, 1).str("a").u32(kTypeArray).u32(kTypeU32).u64(1ull << 40).u32(1);
    EXPECT_EQ(errorOf(raw).code, "gguf.absurd-count");
}

TEST_F(GgufCorrupt, AbsurdInnerArrayLength) {
    RawGguf raw;
    raw.header(3, 0, 1).str("a").u32(kTypeArray).u32(kTypeArray).u64(1);
    raw.u32(kTypeString).u64(~0ull).zeros(16);
    EXPECT_EQ(errorOf(raw).code, "gguf.absurd-count");
}

TEST_F(GgufCorrupt, StringLongerThanFile) {
    RawGguf raw;
    raw.header(3, 0, 1).str("general.name").u32(kTypeString).u64(1ull << 40).zeros(16);
    EXPECT_EQ(errorOf(raw).code, "gguf.string-too-long");
}

TEST_F(GgufCorrupt, UnknownValueType) {
    EXPECT_EQ(errorOf(RawGguf().header(3, 0, 1).str("a").u32(13).u64(0)).code, "gguf.unknown-value-type");
}

TEST_F(GgufCorrupt, UnknownArrayElementType) {
    RawGguf raw;
    raw.header(3, 0, 1).str("a").u32(kTypeArray).u32(200).u64(1).u64(0);
    EXPECT_EQ(errorOf(raw).code, "gguf.unknown-value-type");
}

TEST_F(GgufCorrupt, NestingTooDeep) {
    // Nine arrays inside each other; the default limit is eight.
    RawGguf raw;
    raw.header(3, 0, 1).str("deep").u32(kTypeArray);
    for (int i = 0; i < 8; ++i) {
        raw.u32(kTypeArray).u64(1);
    }
    raw.u32(kTypeU32).u64(1).u32(7);
    EXPECT_EQ(errorOf(raw).code, "gguf.nesting-too-deep");
}

TEST_F(GgufCorrupt, DuplicateKey) {
    RawGguf raw;
    raw.header(3, 0, 2).kvU32("llama.block_count", 32).kvU32("llama.block_count", 16);
    EXPECT_EQ(errorOf(raw).code, "gguf.duplicate-key");
}

TEST_F(GgufCorrupt, EmptyKey) {
    EXPECT_EQ(errorOf(RawGguf().header(3, 0, 1).kvU32("", 1)).code, "gguf.empty-key");
}

TEST_F(GgufCorrupt, DuplicateTensorName) {
    RawGguf raw;
    raw.header(3, 2, 0).tensor("w", {32}, kF32, 0).tensor("w", {32}, kF32, 128).padTo(32).zeros(256);
    EXPECT_EQ(errorOf(raw).code, "gguf.duplicate-tensor");
}

TEST_F(GgufCorrupt, TensorNameTooLong) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor(std::string(64, 't'), {32}, kF32, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.tensor-name-too-long");
}

TEST_F(GgufCorrupt, AlignmentZero) {
    RawGguf raw;
    raw.header(3, 1, 1).kvU32("general.alignment", 0).tensor("w", {32}, kF32, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-alignment");
}

TEST_F(GgufCorrupt, AlignmentThree) {
    RawGguf raw;
    raw.header(3, 1, 1).kvU32("general.alignment", 3).tensor("w", {32}, kF32, 0).padTo(3).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-alignment");
}

TEST_F(GgufCorrupt, AlignmentOfWrongType) {
    // A uint64 of a good value is still refused: llama.cpp insists on uint32.
    RawGguf raw;
    raw.header(3, 1, 1).str("general.alignment").u32(kTypeU64).u64(32);
    raw.tensor("w", {32}, kF32, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-alignment");
}

TEST_F(GgufCorrupt, TensorDataPastEndOfFile) {
    EXPECT_EQ(errorOf(validFile(127)).code, "gguf.tensor-out-of-bounds");
}

TEST_F(GgufCorrupt, TensorOffsetNearTwoToThe64) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {32}, kF32, ~0ull - 31).padTo(32).zeros(128); // offset + bytes wraps
    EXPECT_EQ(errorOf(raw).code, "gguf.tensor-out-of-bounds");
}

TEST_F(GgufCorrupt, MisalignedTensorOffset) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {32}, kF32, 16).padTo(32).zeros(256);
    EXPECT_EQ(errorOf(raw).code, "gguf.misaligned-tensor");
}

TEST_F(GgufCorrupt, FiveDimensions) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {2, 2, 2, 2, 2}, kF32, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-tensor-shape");
}

TEST_F(GgufCorrupt, NoDimensions) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {}, kF32, 0).zeros(64);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-tensor-shape");
}

TEST_F(GgufCorrupt, ZeroSizedDimension) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {32, 0}, kF32, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-tensor-shape");
}

TEST_F(GgufCorrupt, ElementCountOverflows) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {1ull << 32, 1ull << 32}, kF32, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-tensor-shape");
}

TEST_F(GgufCorrupt, ByteCountOverflows) {
    // 2^62 elements fit an int64, but 2^62 f32 values are 2^64 bytes.
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {1ull << 31, 1ull << 31}, kF32, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-tensor-shape");
}

TEST_F(GgufCorrupt, RowNotDivisibleByBlock) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {33, 4}, kQ4_0, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.bad-tensor-shape");
}

TEST_F(GgufCorrupt, UnknownTensorType) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {32}, 99, 0).padTo(32).zeros(128);
    EXPECT_EQ(errorOf(raw).code, "gguf.unknown-tensor-type");
}

TEST_F(GgufCorrupt, RemovedTensorType) {
    RawGguf raw;
    raw.header(3, 1, 0).tensor("w", {32}, 31, 0).padTo(32).zeros(128); // Q4_0_4_4
    EXPECT_EQ(errorOf(raw).code, "gguf.removed-tensor-type");
}

TEST_F(GgufCorrupt, HeaderLargerThanTheLimit) {
    GgufReadLimits limits;
    limits.maxHeaderBytes = 40;
    EXPECT_EQ(errorOf(validFile(), limits).code, "gguf.header-too-large");
}

TEST_F(GgufCorrupt, MoreValuesThanTheLimit) {
    RawGguf raw;
    raw.header(3, 0, 1).str("a").u32(kTypeArray).u32(kTypeU32).u64(5).zeros(20);
    GgufReadLimits limits;
    limits.maxMetadataValues = 4;
    EXPECT_EQ(errorOf(raw, limits).code, "gguf.absurd-count");
}

TEST_F(GgufCorrupt, MissingFile) {
    const auto read = readGgufFile(m_dir.path("does-not-exist.gguf"));
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().code, "gguf.open-failed");
}

TEST_F(GgufCorrupt, DirectoryInsteadOfFile) {
    const auto read = readGgufFile(m_dir.path(""));
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().code, "gguf.open-failed");
}

} // namespace
} // namespace llamafit

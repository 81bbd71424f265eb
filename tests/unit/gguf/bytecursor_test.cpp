// ByteCursor: every read is checked against the prefix held, the file size and the
// header limit, and each failure is told apart.

#include "core/gguf/bytecursor.h"

#include "tests/unit/gguf/rawgguf.h"

#include <gtest/gtest.h>

#include <limits>

namespace llamafit {
namespace {

using test::RawGguf;

TEST(ByteCursor, ReadsLittleEndianValuesInOrder) {
    const auto bytes = RawGguf().u32(0x11223344).u64(7).str("abc").bytes();
    ByteCursor in(bytes, bytes.size(), 1024);
    std::uint32_t a = 0;
    std::uint64_t b = 0;
    std::string s;
    ASSERT_TRUE(in.read(a, "a") && in.read(b, "b") && in.readString(s, "s"));
    EXPECT_EQ(a, 0x11223344u);
    EXPECT_EQ(b, 7u);
    EXPECT_EQ(s, "abc");
    EXPECT_EQ(in.position(), bytes.size());
    EXPECT_EQ(in.fileRemaining(), 0u);
    EXPECT_FALSE(in.failed());
}

TEST(ByteCursor, ReadPastTheFileIsTruncatedWithoutARetryHint) {
    const auto bytes = RawGguf().u32(1).bytes();
    ByteCursor in(bytes, bytes.size(), 1024);
    std::uint64_t v = 0;
    EXPECT_FALSE(in.read(v, "v"));
    EXPECT_EQ(in.error().code, "gguf.truncated");
    EXPECT_FALSE(in.neededBytes().has_value());
}

TEST(ByteCursor, ReadPastThePrefixAsksForMoreBytes) {
    const auto bytes = RawGguf().u32(1).u32(2).bytes();
    ByteCursor in(std::span<const std::uint8_t>(bytes).first(6), 100, 1024);
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    EXPECT_TRUE(in.read(a, "a"));
    EXPECT_FALSE(in.read(b, "b"));
    EXPECT_EQ(in.error().code, "gguf.truncated");
    EXPECT_EQ(in.neededBytes(), 8u);
}

TEST(ByteCursor, ReadPastTheHeaderLimitIsHeaderTooLarge) {
    const auto bytes = RawGguf().u64(1).u64(2).bytes();
    ByteCursor in(bytes, 1000, 12);
    std::uint64_t v = 0;
    EXPECT_TRUE(in.read(v, "first"));
    EXPECT_FALSE(in.read(v, "second"));
    EXPECT_EQ(in.error().code, "gguf.header-too-large");
    EXPECT_FALSE(in.neededBytes().has_value());
}

TEST(ByteCursor, StringLongerThanTheFileIsRejectedBeforeAllocating) {
    const auto bytes = RawGguf().u64(std::numeric_limits<std::uint64_t>::max()).u32(0).bytes();
    ByteCursor in(bytes, bytes.size(), 1024);
    std::string s;
    EXPECT_FALSE(in.readString(s, "name"));
    EXPECT_EQ(in.error().code, "gguf.string-too-long");
    EXPECT_TRUE(s.empty());
}

TEST(ByteCursor, CountCheckDoesNotOverflow) {
    const auto bytes = RawGguf().zeros(64).bytes();
    ByteCursor in(bytes, bytes.size(), 1024);
    EXPECT_TRUE(in.checkCount(8, 8, "fits exactly"));
    EXPECT_FALSE(in.checkCount(std::numeric_limits<std::uint64_t>::max() / 4 + 1, 8, "would wrap"));
    EXPECT_EQ(in.error().code, "gguf.absurd-count");
}

TEST(ByteCursor, FirstErrorWins) {
    const auto bytes = RawGguf().u32(1).bytes();
    ByteCursor in(bytes, bytes.size(), 1024);
    std::uint64_t v = 0;
    EXPECT_FALSE(in.read(v, "v"));
    in.fail("gguf.other", "later");
    EXPECT_EQ(in.error().code, "gguf.truncated");
    std::uint8_t b = 0;
    EXPECT_FALSE(in.read(b, "after the error"));
}

} // namespace
} // namespace llamafit

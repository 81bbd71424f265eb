// ByteCursor: every read is checked against the bytes held, the file size and the
// header limit, and each failure is told apart; a restarted cursor reads a window of the
// file at file offsets.

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

TEST(ByteCursor, RestartReadsAWindowAtFileOffsets) {
    // The file is u32 1, u32 2, u32 3; the window holds bytes 4..11 (the second and third).
    const auto file = RawGguf().u32(1).u32(2).u32(3).bytes();
    const std::span<const std::uint8_t> window = std::span<const std::uint8_t>(file).subspan(4);
    ByteCursor in({}, file.size() + 100, 1024);
    std::uint32_t v = 0;
    EXPECT_FALSE(in.read(v, "nothing held yet"));
    in.restart(window, 4, 8);
    EXPECT_FALSE(in.failed());
    EXPECT_EQ(in.position(), 8u);
    ASSERT_TRUE(in.read(v, "third"));
    EXPECT_EQ(v, 3u);
    EXPECT_EQ(in.bytesFrom(8).size(), 4u);
    EXPECT_EQ(in.bytesFrom(4).size(), 8u);
    EXPECT_TRUE(in.readable().empty());
    // Past the window the position stays a file offset.
    EXPECT_FALSE(in.read(v, "fourth"));
    EXPECT_EQ(in.error().code, "gguf.truncated");
    EXPECT_EQ(in.neededBytes(), 16u);
}

TEST(ByteCursor, ReadableStopsAtTheHeaderLimit) {
    const auto bytes = RawGguf().zeros(64).bytes();
    ByteCursor in(bytes, 1000, 40);
    EXPECT_EQ(in.readable().size(), 40u);
    ASSERT_NE(in.take(30, "some"), nullptr);
    EXPECT_EQ(in.readable().size(), 10u);
    EXPECT_EQ(in.readable().data(), bytes.data() + 30);
}

TEST(ByteCursor, ExpectNeededRaisesTheHintWithinTheFileAndTheLimit) {
    const auto bytes = RawGguf().zeros(16).bytes();
    ByteCursor noHint(bytes, bytes.size(), 1024);
    noHint.expectNeeded(500); // no retry hint to raise: the file ends
    EXPECT_FALSE(noHint.neededBytes().has_value());

    ByteCursor in(bytes, 100, 1024);
    EXPECT_EQ(in.take(20, "past the prefix"), nullptr);
    ASSERT_EQ(in.neededBytes(), 20u);
    in.expectNeeded(10); // never lowers it
    EXPECT_EQ(in.neededBytes(), 20u);
    in.expectNeeded(60);
    EXPECT_EQ(in.neededBytes(), 60u);
    in.expectNeeded(5000); // capped at the file size
    EXPECT_EQ(in.neededBytes(), 100u);

    ByteCursor limited(bytes, 100, 50);
    EXPECT_EQ(limited.take(20, "past the prefix"), nullptr);
    limited.expectNeeded(5000); // capped at the header limit
    EXPECT_EQ(limited.neededBytes(), 50u);
}

} // namespace
} // namespace llamafit

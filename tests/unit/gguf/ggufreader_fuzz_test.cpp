// Robustness: a valid header cut at every byte and mutated at many places with a fixed
// seed. The reader must answer ok or a named gguf.* error every time: no crash, no hang,
// no exception. Runs in well under a second.

#include "core/gguf/ggufreader.h"

#include "tests/support/ggufwriter.h"
#include "tests/unit/gguf/gguftestmodels.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

namespace llamafit {
namespace {

const std::set<std::string> kKnownCodes = {
    "gguf.bad-magic",
    "gguf.unsupported-version",
    "gguf.truncated",
    "gguf.absurd-count",
    "gguf.string-too-long",
    "gguf.unknown-value-type",
    "gguf.nesting-too-deep",
    "gguf.duplicate-key",
    "gguf.bad-alignment",
    "gguf.unknown-tensor-type",
    "gguf.removed-tensor-type",
    "gguf.bad-tensor-shape",
    "gguf.duplicate-tensor",
    "gguf.misaligned-tensor",
    "gguf.tensor-out-of-bounds",
    "gguf.header-too-large",
    "gguf.empty-key",
    "gguf.tensor-name-too-long",
    "gguf.unexpected-tensor-offset",
};

struct Fixture {
    std::vector<std::uint8_t> header;
    std::uint64_t fileBytes = 0;
};

Fixture validHeader() {
    const GgufFile file = test::richFile();
    Fixture f;
    f.header = test::serializeGgufHeader(file);
    f.fileBytes = f.header.size() + padTo(file.tensors.back().dataOffset + file.tensors.back().bytes, 32);
    return f;
}

TEST(GgufReaderFuzz, EveryTruncationIsAnErrorUntilTheHeaderIsWhole) {
    const Fixture f = validHeader();
    ASSERT_TRUE(parseGguf(f.header, f.fileBytes).ok());
    bool sawOk = false;
    for (std::size_t length = 0; length <= f.header.size(); ++length) {
        const std::span<const std::uint8_t> prefix(f.header.data(), length);
        // As a whole (short) file: the header or the tensor data runs past its end.
        const auto asFile = parseGguf(prefix, length);
        ASSERT_FALSE(asFile.ok()) << "a " << length << "-byte file parsed";
        EXPECT_TRUE(kKnownCodes.count(asFile.error().code)) << asFile.error().code;
        // As a prefix of the real file: an error until the last header byte is there, then
        // ok for every longer prefix (only the alignment padding may be missing).
        const auto asPrefix = parseGguf(prefix, f.fileBytes);
        if (asPrefix.ok()) {
            sawOk = true;
        } else {
            EXPECT_FALSE(sawOk) << "prefix of " << length << " bytes failed after a shorter one parsed";
            EXPECT_EQ(asPrefix.error().code, "gguf.truncated") << length;
        }
    }
    EXPECT_TRUE(sawOk);
}

TEST(GgufReaderFuzz, MutatedHeadersNeverCrash) {
    const Fixture f = validHeader();
    std::mt19937_64 random(20260514); // fixed seed: the same mutations on every run
    std::uniform_int_distribution<std::size_t> offsetOf(0, f.header.size() - 1);
    const std::uint64_t interesting[] = {
        0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0xFFFFFFFF, 0x7FFFFFFFFFFFFFFF, ~0ull, 13, 9, 1ull << 40};
    int okCount = 0;
    int errorCount = 0;
    std::vector<std::uint8_t> bytes;
    for (int round = 0; round < 10000; ++round) {
        bytes = f.header;
        const int mutations = 1 + static_cast<int>(random() % 4);
        for (int m = 0; m < mutations; ++m) {
            const std::size_t at = offsetOf(random);
            if (random() % 2 == 0) {
                bytes[at] = static_cast<std::uint8_t>(random());
            } else {
                // Plant a boundary value over a count, length or type field.
                const std::uint64_t value = interesting[random() % std::size(interesting)];
                const std::size_t width = std::size_t{1} << (random() % 4); // 1, 2, 4 or 8 bytes
                for (std::size_t i = 0; i < width && at + i < bytes.size(); ++i) {
                    bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
                }
            }
        }
        // Sometimes also cut the mutated header short.
        std::span<const std::uint8_t> input(bytes);
        if (random() % 4 == 0) {
            input = input.first(offsetOf(random));
        }
        const auto result = parseGguf(input, random() % 2 ? f.fileBytes : input.size());
        if (result.ok()) {
            ++okCount;
        } else {
            ++errorCount;
            ASSERT_TRUE(kKnownCodes.count(result.error().code))
                << "round " << round << ": " << result.error().code << " " << result.error().message;
        }
    }
    // Both outcomes happen, so the mutations reached past the first field.
    EXPECT_GT(okCount, 0);
    EXPECT_GT(errorCount, 0);
}

} // namespace
} // namespace llamafit

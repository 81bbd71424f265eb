// GgufParser fed the header piece by piece, as readGgufFile does: whatever the window
// sizes, the result (or the error) is the one a parse of the whole header gives, and a
// string array cut by a window asks for about the whole array at once.

#include "core/gguf/ggufparser.h"

#include "tests/support/ggufbuilder.h"
#include "tests/support/ggufwriter.h"
#include "tests/unit/gguf/gguftestmodels.h"
#include "tests/unit/gguf/scratchdir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace llamafit {
namespace {

// Parses `header` of a file of `fileBytes` bytes through windows that start where the
// parser resumes and end at least `stepBytes` further on, like readGgufFile; counts the
// calls in *calls.
Result<GgufFile> parseInWindows(const std::vector<std::uint8_t>& header, std::uint64_t fileBytes,
                                std::uint64_t stepBytes, int* calls = nullptr) {
    GgufParser parser(fileBytes, {});
    std::uint64_t from = 0;
    std::uint64_t to = std::min<std::uint64_t>(stepBytes, header.size());
    for (int call = 1;; ++call) {
        const std::span<const std::uint8_t> window(header.data() + from, static_cast<std::size_t>(to - from));
        auto result = parser.parse(window, from);
        if (calls) {
            *calls = call;
        }
        const auto needed = parser.neededBytes();
        if (result.ok() || !needed || to >= header.size()) {
            return result;
        }
        EXPECT_GT(*needed, to);
        EXPECT_LE(*needed, fileBytes);
        from = parser.resumeOffset();
        EXPECT_LE(from, to);
        to = std::min<std::uint64_t>(header.size(), std::max(*needed, to + stepBytes));
    }
}

void expectSame(const Result<GgufFile>& got, const Result<GgufFile>& whole, const std::string& what) {
    ASSERT_EQ(got.ok(), whole.ok()) << what << ": " << (got.ok() ? whole : got).error().message;
    if (!whole.ok()) {
        EXPECT_EQ(got.error().code, whole.error().code) << what;
        return;
    }
    ASSERT_EQ(got->metadata.size(), whole->metadata.size()) << what;
    for (std::size_t i = 0; i < whole->metadata.size(); ++i) {
        EXPECT_EQ(got->metadata[i].first, whole->metadata[i].first) << what;
        EXPECT_TRUE(got->metadata[i].second == whole->metadata[i].second)
            << what << " " << whole->metadata[i].first;
    }
    EXPECT_EQ(got->tensors, whole->tensors) << what;
    EXPECT_EQ(got->dataOffset, whole->dataOffset) << what;
    EXPECT_EQ(got->alignment, whole->alignment) << what;
}

GgufFile vocabularyFile(std::size_t tokens) {
    std::vector<std::string> texts;
    std::vector<float> scores;
    std::vector<std::int32_t> types;
    for (std::size_t i = 0; i < tokens; ++i) {
        texts.push_back(i % 97 == 0 ? std::string(30 + i % 50, 'x') : "t" + std::to_string(i));
        scores.push_back(-static_cast<float>(i));
        types.push_back(static_cast<std::int32_t>(i % 7));
    }
    test::GgufBuilder b("llama");
    b.setStringArray("tokenizer.ggml.tokens", texts);
    b.setFloat32Array("tokenizer.ggml.scores", scores);
    b.setInt32Array("tokenizer.ggml.token_type", types);
    b.addTensor("token_embd.weight", GgmlType::F16, {64, tokens});
    return b.build();
}

std::uint64_t fileBytesOf(const GgufFile& file, std::size_t headerBytes) {
    return headerBytes + padTo(file.tensors.back().dataOffset + file.tensors.back().bytes, 32);
}

TEST(GgufParser, AnyWindowSizeGivesTheWholeParse) {
    for (const GgufFile& file : {test::richFile(), test::richFile(64), vocabularyFile(3000)}) {
        const auto header = test::serializeGgufHeader(file);
        const std::uint64_t fileBytes = fileBytesOf(file, header.size());
        const auto whole = parseGguf(header, fileBytes);
        ASSERT_TRUE(whole.ok()) << whole.error().message;
        for (std::uint64_t step : {1, 3, 8, 17, 64, 1000, 4096}) {
            expectSame(parseInWindows(header, fileBytes, step), whole, "step " + std::to_string(step));
        }
    }
}

TEST(GgufParser, ACutStringArrayAsksForAboutTheWholeArray) {
    // 20000 tokens of 6 to 8 bytes (+ 8 for the length): ~300 kB in one key.
    const GgufFile file = vocabularyFile(20000);
    const auto header = test::serializeGgufHeader(file);
    const std::uint64_t fileBytes = fileBytesOf(file, header.size());
    GgufParser parser(fileBytes, {});
    EXPECT_FALSE(parser.parse(std::span<const std::uint8_t>(header).first(64 * 1024)).ok());
    ASSERT_TRUE(parser.neededBytes().has_value());
    // Far past the string that was cut (the array is ~280 kB), and still inside the file.
    EXPECT_GT(*parser.neededBytes(), 2u * 64 * 1024);
    EXPECT_LE(*parser.neededBytes(), fileBytes);
    // So the 440 kB header takes 5 calls at most, where steps of 64 kB alone would take 7.
    int calls = 0;
    const auto read = parseInWindows(header, fileBytes, 64 * 1024, &calls);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_GT(header.size(), 6u * 64 * 1024);
    EXPECT_LE(calls, 5);
}

// A reader over HTTP reads, each time, from where it stopped to certainHeaderEnd(): it gets the
// whole header without a byte of tensor data, in few enough reads.
TEST(GgufParser, ReadingToTheCertainEndNeverReadsTensorData) {
    for (const GgufFile& file : {test::richFile(), vocabularyFile(3000), vocabularyFile(150000)}) {
        const auto header = test::serializeGgufHeader(file);
        const std::uint64_t fileBytes = fileBytesOf(file, header.size());
        const auto whole = parseGguf(header, fileBytes);
        ASSERT_TRUE(whole.ok()) << whole.error().message;
        // The file as it is on disk: the header, its padding, then tensor data.
        std::vector<std::uint8_t> bytes = header;
        bytes.resize(static_cast<std::size_t>(fileBytes), 0xEE);

        GgufParser parser(fileBytes, {});
        std::vector<std::uint8_t> held; // the file from `heldFrom` on, read so far
        std::uint64_t heldFrom = 0;
        std::uint64_t readTo = 0;
        int reads = 0;
        Result<GgufFile> result = makeError("test.not-run", "");
        for (;;) {
            const std::uint64_t next = parser.certainHeaderEnd();
            ASSERT_GT(next, readTo) << "no progress after " << reads << " reads";
            ASSERT_LE(next, whole->dataOffset) << "read into the tensor data";
            held.insert(held.end(), bytes.begin() + static_cast<std::ptrdiff_t>(readTo),
                        bytes.begin() + static_cast<std::ptrdiff_t>(next));
            readTo = next;
            ++reads;
            result = parser.parse(held, heldFrom);
            if (result.ok() || !parser.neededBytes()) {
                break;
            }
            // Drop what the parser will not read again.
            const std::uint64_t resume = parser.resumeOffset();
            held.erase(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(resume - heldFrom));
            heldFrom = resume;
        }
        expectSame(result, whole, "certain reads");
        EXPECT_LE(reads, 64) << header.size() << "-byte header";
    }
}

TEST(GgufParser, MutatedHeadersGiveTheSameErrorInWindows) {
    const GgufFile file = test::richFile();
    const auto valid = test::serializeGgufHeader(file);
    const std::uint64_t fileBytes = fileBytesOf(file, valid.size());
    std::mt19937_64 random(20260515); // fixed seed: the same mutations on every run
    std::uniform_int_distribution<std::size_t> offsetOf(0, valid.size() - 1);
    int okCount = 0;
    for (int round = 0; round < 1500; ++round) {
        auto bytes = valid;
        const std::size_t at = offsetOf(random);
        const std::uint64_t value = random() % 3 == 0 ? ~0ull >> (random() % 64) : random() % 16;
        for (std::size_t i = 0; i < 8 && at + i < bytes.size(); ++i) {
            bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
        }
        const auto whole = parseGguf(bytes, fileBytes);
        okCount += whole.ok() ? 1 : 0;
        expectSame(parseInWindows(bytes, fileBytes, 1 + random() % 200), whole,
                   "round " + std::to_string(round));
        if (HasFailure()) {
            break;
        }
    }
    EXPECT_GT(okCount, 0);
}

TEST(GgufParser, RefusesToGoOnAfterItsFinalResultOrFromTheWrongPlace) {
    const GgufFile file = test::richFile();
    const auto header = test::serializeGgufHeader(file);
    const std::uint64_t fileBytes = fileBytesOf(file, header.size());
    GgufParser done(fileBytes, {});
    ASSERT_TRUE(done.parse(header).ok());
    EXPECT_EQ(done.parse(header).error().code, "gguf.internal");

    GgufParser cut(fileBytes, {});
    EXPECT_EQ(cut.parse(std::span<const std::uint8_t>(header).first(100)).error().code, "gguf.truncated");
    const std::uint64_t resume = cut.resumeOffset();
    ASSERT_GT(resume, 0u);
    const auto late = std::span<const std::uint8_t>(header).subspan(static_cast<std::size_t>(resume) + 1);
    EXPECT_EQ(cut.parse(late, resume + 1).error().code, "gguf.internal");
}

TEST(GgufParser, ReadGgufFileWithTinyReadsMatchesOneRead) {
    const GgufFile file = vocabularyFile(50000);
    test::ScratchDir dir;
    const std::string path = dir.path("vocab.gguf");
    ASSERT_EQ(test::writeGguf(path, file), "");
    const auto oneRead = readGgufFile(path);
    ASSERT_TRUE(oneRead.ok()) << oneRead.error().message;
    for (std::uint64_t first : {16, 1000, 65536}) {
        GgufReadLimits limits;
        limits.initialReadBytes = first;
        expectSame(readGgufFile(path, limits), oneRead, "first read " + std::to_string(first));
    }
}

} // namespace
} // namespace llamafit

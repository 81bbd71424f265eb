// Round trips: files built with GgufBuilder, written with writeGguf (sparse data), read back
// with readGgufFile / readGgufModel / parseGguf and compared field by field.

#include "core/gguf/ggufreader.h"

#include "tests/support/ggufwriter.h"
#include "tests/unit/gguf/gguftestmodels.h"
#include "tests/unit/gguf/scratchdir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit {
namespace {

using test::GgufBuilder;
using test::ScratchDir;

void expectSameContent(const GgufFile& read, const GgufFile& built) {
    ASSERT_EQ(read.metadata.size(), built.metadata.size());
    for (std::size_t i = 0; i < built.metadata.size(); ++i) {
        EXPECT_EQ(read.metadata[i].first, built.metadata[i].first) << i;
        EXPECT_TRUE(read.metadata[i].second == built.metadata[i].second) << built.metadata[i].first;
    }
    ASSERT_EQ(read.tensors.size(), built.tensors.size());
    for (std::size_t i = 0; i < built.tensors.size(); ++i) {
        EXPECT_EQ(read.tensors[i], built.tensors[i]) << built.tensors[i].name;
    }
}

class GgufRoundTrip : public ::testing::TestWithParam<std::tuple<std::uint32_t, std::uint64_t>> {};

TEST_P(GgufRoundTrip, EveryValueTypeAndTensorSurvives) {
    const auto [version, alignment] = GetParam();
    ScratchDir dir;
    ASSERT_TRUE(dir.valid());
    const GgufFile built = test::richFile(alignment);
    const std::string path = dir.path("rich.gguf");
    ASSERT_EQ(test::writeGguf(path, built, {version, {}}), "");

    const auto read = readGgufFile(path);
    ASSERT_TRUE(read.ok()) << read.error().code << ": " << read.error().message;
    expectSameContent(*read, built);
    EXPECT_EQ(read->version, version);
    EXPECT_EQ(read->alignment, alignment);
    EXPECT_EQ(read->dataOffset, test::serializeGgufHeader(built, version).size());
    EXPECT_EQ(read->dataOffset % alignment, 0u);
    EXPECT_EQ(read->fileBytes, std::filesystem::file_size(path));
    EXPECT_EQ(read->partPaths, std::vector<std::string>{path});
    EXPECT_EQ(read->splitCount, 1u);
    EXPECT_EQ(read->tensorBytes(), built.tensorBytes());

    // The typed accessors work on what was read (the index was built).
    EXPECT_EQ(read->getString("general.architecture"), "llama");
    EXPECT_EQ(read->getUint("t.u64"), 0xFEDCBA9876543210ull);
    EXPECT_EQ(read->getInt("t.i8"), -100);
    EXPECT_EQ(read->getFloat("t.f64"), -2.718281828459045);
    EXPECT_EQ(read->getBool("t.bool"), true);
    EXPECT_EQ(read->getIntArray("t.arr.bool"), (std::vector<std::int64_t>{1, 0, 1}));
    EXPECT_EQ(read->arrayLength("t.arr.arr.string"), 3u);
    ASSERT_NE(read->findTensor("blk.0.ffn_gate_exps.weight"), nullptr);
    EXPECT_EQ(read->findTensor("blk.0.ffn_gate_exps.weight")->bytes, 512u / 32 * 17 * 64 * 4);

    // The model entry point gives the same for a file that is not split.
    const auto model = readGgufModel(path);
    ASSERT_TRUE(model.ok()) << model.error().message;
    expectSameContent(*model, built);
    EXPECT_EQ(model->fileBytes, read->fileBytes);
}

INSTANTIATE_TEST_SUITE_P(VersionsAndAlignments, GgufRoundTrip,
                         ::testing::Values(std::tuple{3u, std::uint64_t{32}},
                                           std::tuple{2u, std::uint64_t{32}},
                                           std::tuple{3u, std::uint64_t{64}},
                                           std::tuple{2u, std::uint64_t{1}},
                                           std::tuple{3u, std::uint64_t{4096}}));

TEST(GgufReader, NestedArraysKeepTheirShape) {
    ScratchDir dir;
    const std::string path = dir.path("nested.gguf");
    ASSERT_EQ(test::writeGguf(path, test::richFile()), "");
    const auto read = readGgufFile(path);
    ASSERT_TRUE(read.ok()) << read.error().message;
    const GgufValue* value = read->find("t.arr.arr.arr.string");
    ASSERT_NE(value, nullptr);
    const auto& outer = *std::get<std::shared_ptr<GgufArray>>(value->data);
    ASSERT_EQ(outer.elementType(), GgufValueType::Array);
    ASSERT_EQ(outer.size(), 1u);
    const auto& middle = outer.arrayAt(0);
    ASSERT_EQ(middle.size(), 3u);
    const auto& inner = middle.arrayAt(0);
    EXPECT_EQ(inner.elementType(), GgufValueType::String);
    EXPECT_EQ(inner.stringAt(1), "yy");
    EXPECT_EQ(std::get<std::string>(inner.elementAt(1).data), "yy");
    EXPECT_TRUE(middle.arrayAt(1).empty());
    EXPECT_EQ(middle.arrayAt(2).stringAt(0), "zzz");
}

TEST(GgufReader, SmallFirstReadGrowsToTheWholeHeader) {
    ScratchDir dir;
    const GgufFile built = test::richFile();
    const std::string path = dir.path("grow.gguf");
    ASSERT_EQ(test::writeGguf(path, built), "");
    GgufReadLimits limits;
    limits.initialReadBytes = 16; // forces several re-reads
    const auto read = readGgufFile(path, limits);
    ASSERT_TRUE(read.ok()) << read.error().message;
    expectSameContent(*read, built);
}

TEST(GgufReader, VocabularyOfSeveralMegabytesIsRead) {
    // A 250k-token vocabulary makes a header of several MB, past the first 1 MiB read.
    constexpr std::size_t kTokens = 250000;
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<std::int32_t> types;
    tokens.reserve(kTokens);
    for (std::size_t i = 0; i < kTokens; ++i) {
        tokens.push_back("tok_" + std::to_string(i * 7919));
        scores.push_back(-static_cast<float>(i));
        types.push_back(static_cast<std::int32_t>(i % 6));
    }
    GgufBuilder b("llama");
    b.setStringArray("tokenizer.ggml.tokens", tokens);
    b.setFloat32Array("tokenizer.ggml.scores", scores);
    b.setInt32Array("tokenizer.ggml.token_type", types);
    b.addTensor("token_embd.weight", GgmlType::Q8_0, {4096, kTokens});
    ScratchDir dir;
    const std::string path = dir.path("vocab.gguf");
    ASSERT_EQ(test::writeGguf(path, b.build()), "");

    const auto read = readGgufFile(path);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_GT(read->dataOffset, 4u * 1024 * 1024);
    EXPECT_EQ(read->arrayLength("tokenizer.ggml.tokens"), kTokens);
    const auto* last = read->find("tokenizer.ggml.tokens");
    ASSERT_NE(last, nullptr);
    const GgufArray* readTokens = last->array();
    ASSERT_NE(readTokens, nullptr);
    EXPECT_EQ(readTokens->stringAt(kTokens - 1), tokens.back());
    EXPECT_EQ(readTokens->stringAt(0), tokens.front());
    EXPECT_EQ(read->getIntArray("tokenizer.ggml.token_type").value_or(std::vector<std::int64_t>{}).at(7), 1);
    const GgufArray* readScores = read->find("tokenizer.ggml.scores")->array();
    ASSERT_NE(readScores, nullptr);
    EXPECT_EQ(std::get<double>(readScores->elementAt(kTokens - 1).data), scores.back());
    EXPECT_EQ(read->findTensor("token_embd.weight")->bytes, 4352u * kTokens);
}

TEST(GgufReader, ParseFromMemoryMatchesTheFileReader) {
    const GgufFile built = test::richFile(64);
    const auto header = test::serializeGgufHeader(built);
    const std::uint64_t fileBytes =
        header.size() + padTo(built.tensors.back().dataOffset + built.tensors.back().bytes, 64);
    const auto parsed = parseGguf(header, fileBytes);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    expectSameContent(*parsed, built);
    EXPECT_EQ(parsed->fileBytes, fileBytes);
    EXPECT_TRUE(parsed->partPaths.empty());
}

TEST(GgufReader, FileWithoutTensorsHasNoPadding) {
    GgufBuilder b("llama");
    b.setString("general.name", "abc"); // header end is not on the 32-byte grid
    const auto header = test::serializeGgufHeader(b.build());
    const auto parsed = parseGguf(header, header.size());
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_TRUE(parsed->tensors.empty());
    // llama.cpp gguf.cpp only pads to the alignment when there are tensors.
    EXPECT_LT(parsed->dataOffset, header.size());
    EXPECT_NE(parsed->dataOffset % 32, 0u);
}

TEST(GgufReader, NestingLimitIsConfigurable) {
    const auto header = test::serializeGgufHeader(test::richFile());
    GgufReadLimits limits;
    limits.maxArrayNesting = 3; // t.arr.arr.arr.string is exactly 3 deep
    EXPECT_TRUE(parseGguf(header, 1ull << 30, limits).ok());
    limits.maxArrayNesting = 2;
    const auto refused = parseGguf(header, 1ull << 30, limits);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "gguf.nesting-too-deep");
}

} // namespace
} // namespace llamafit

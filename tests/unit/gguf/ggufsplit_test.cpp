// Split models ("name-00001-of-00003.gguf"): finding the parts from any one of them,
// merging their tensor tables, and every way the parts can disagree.

#include "core/gguf/ggufsplit.h"

#include "core/gguf/ggufreader.h"
#include "tests/support/ggufbuilder.h"
#include "tests/support/ggufwriter.h"
#include "tests/unit/gguf/scratchdir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit {
namespace {

using test::GgufBuilder;

TEST(GgufSplitName, RecognisesLlamaCppPartNames) {
    const auto name = parseGgufSplitName("/models/Qwen3-235B-Q4_K_M-00002-of-00005.gguf");
    ASSERT_TRUE(name.has_value());
    EXPECT_EQ(name->prefix, "/models/Qwen3-235B-Q4_K_M");
    EXPECT_EQ(name->number, 2u);
    EXPECT_EQ(name->count, 5u);
    EXPECT_EQ(ggufSplitPartPath(name->prefix, 5, 5), "/models/Qwen3-235B-Q4_K_M-00005-of-00005.gguf");
}

TEST(GgufSplitName, RefusesOtherNames) {
    for (const char* path :
         {"model.gguf", "model-00001-of-00003.bin", "model-0001-of-00003.gguf", "model-00001-of-0003.gguf",
          "model-00000-of-00003.gguf", "model-00004-of-00003.gguf", "model-000001-of-000003.gguf",
          "-00001-of-00003.gguf", "model_00001-of-00003.gguf", "model-00001-of-00003.gguf.part",
          "/models/-00001-of-00003.gguf"}) {
        EXPECT_FALSE(parseGgufSplitName(path).has_value()) << path;
    }
}

// Writes a split model the way llama.cpp's gguf-split does: full metadata in part 1, only
// split.* keys in the others, split.count / split.no as uint16, split.tensors.count as int32.
class GgufSplitModel : public ::testing::Test {
  protected:
    static constexpr std::uint32_t kParts = 3;

    GgufBuilder part(std::uint32_t index, std::int32_t tensorCount = kParts * 2) {
        GgufBuilder b(index == 0 ? "llama" : "");
        if (index == 0) {
            b.setUint32("llama.block_count", kParts);
        }
        b.set("split.no", GgufValue::fromUint(index, GgufValueType::Uint16));
        b.set("split.count", GgufValue::fromUint(kParts, GgufValueType::Uint16));
        b.setInt32("split.tensors.count", tensorCount);
        const std::string layer = "blk." + std::to_string(index) + ".";
        b.addTensor(layer + "attn_q.weight", GgmlType::Q8_0, {256, 256});
        b.addTensor(layer + "ffn_up.weight", GgmlType::Q4_K, {256, 512});
        return b;
    }

    std::string write(std::uint32_t index, const GgufBuilder& b) {
        const std::string path = ggufSplitPartPath(m_dir.path("model"), index + 1, kParts);
        EXPECT_EQ(test::writeGguf(path, b.build()), "");
        return path;
    }

    void writeAll() {
        for (std::uint32_t i = 0; i < kParts; ++i) {
            write(i, part(i));
        }
    }

    Error errorOf(std::uint32_t readPart = 0) {
        const auto read = readGgufModel(ggufSplitPartPath(m_dir.path("model"), readPart + 1, kParts));
        if (read.ok()) {
            ADD_FAILURE() << "an inconsistent split model was read";
            return {};
        }
        return read.error();
    }

    test::ScratchDir m_dir;
};

TEST_F(GgufSplitModel, AnyPartFindsAndMergesAllParts) {
    writeAll();
    std::uint64_t totalBytes = 0;
    for (std::uint32_t i = 1; i <= kParts; ++i) {
        totalBytes += std::filesystem::file_size(ggufSplitPartPath(m_dir.path("model"), i, kParts));
    }
    for (std::uint32_t given = 0; given < kParts; ++given) {
        SCOPED_TRACE(given);
        const auto model = readGgufModel(ggufSplitPartPath(m_dir.path("model"), given + 1, kParts));
        ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
        EXPECT_EQ(model->splitCount, kParts);
        ASSERT_EQ(model->partPaths.size(), kParts);
        EXPECT_EQ(model->partPaths[2], ggufSplitPartPath(m_dir.path("model"), 3, kParts));
        EXPECT_EQ(model->fileBytes, totalBytes);
        ASSERT_EQ(model->tensors.size(), kParts * 2);
        for (std::uint32_t i = 0; i < kParts; ++i) {
            const auto* tensor = model->findTensor("blk." + std::to_string(i) + ".ffn_up.weight");
            ASSERT_NE(tensor, nullptr);
            EXPECT_EQ(tensor->splitIndex, i);
            EXPECT_EQ(tensor->bytes, 144u * 512);
        }
        // Metadata is part 1's.
        EXPECT_EQ(model->getString("general.architecture"), "llama");
        EXPECT_EQ(model->getUint("split.no"), 0u);
    }
}

TEST_F(GgufSplitModel, FirstPartMayHoldNoTensors) {
    // gguf-split --no-tensor-in-metadata: part 1 carries only the metadata.
    GgufBuilder first("llama");
    first.set("split.no", GgufValue::fromUint(0, GgufValueType::Uint16));
    first.set("split.count", GgufValue::fromUint(kParts, GgufValueType::Uint16));
    first.setInt32("split.tensors.count", 4);
    write(0, first);
    write(1, part(1, 4));
    write(2, part(2, 4));
    const auto model = readGgufModel(ggufSplitPartPath(m_dir.path("model"), 1, kParts));
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(model->tensors.size(), 4u);
    EXPECT_EQ(model->tensors.front().splitIndex, 1u);
}

TEST_F(GgufSplitModel, MissingPart) {
    write(0, part(0));
    write(2, part(2));
    const Error error = errorOf(2);
    EXPECT_EQ(error.code, "gguf.split-part-missing");
    EXPECT_NE(error.message.find("00002-of-00003"), std::string::npos) << error.message;
}

TEST_F(GgufSplitModel, SplitCountDisagreesWithTheNames) {
    writeAll();
    write(1, part(1).set("split.count", GgufValue::fromUint(2, GgufValueType::Uint16)));
    EXPECT_EQ(errorOf().code, "gguf.split-mismatch");
}

TEST_F(GgufSplitModel, SplitCountMissing) {
    writeAll();
    GgufBuilder b;
    b.set("split.no", GgufValue::fromUint(2, GgufValueType::Uint16));
    b.addTensor("blk.2.attn_q.weight", GgmlType::Q8_0, {256, 256});
    write(2, b);
    EXPECT_EQ(errorOf().code, "gguf.split-mismatch");
}

TEST_F(GgufSplitModel, PartNumberDisagreesWithTheName) {
    writeAll();
    write(2, part(2).set("split.no", GgufValue::fromUint(1, GgufValueType::Uint16)));
    EXPECT_EQ(errorOf().code, "gguf.split-mismatch");
}

TEST_F(GgufSplitModel, PartNumberOfWrongType) {
    writeAll();
    write(1, part(1).setUint32("split.no", 1));
    EXPECT_EQ(errorOf().code, "gguf.split-mismatch");
}

TEST_F(GgufSplitModel, TensorCountDisagreesWithTheParts) {
    writeAll();
    write(0, part(0, 7));
    EXPECT_EQ(errorOf().code, "gguf.split-mismatch");
}

TEST_F(GgufSplitModel, TensorInTwoParts) {
    writeAll();
    GgufBuilder b = part(2);
    b.addTensor("blk.0.attn_q.weight", GgmlType::Q8_0, {256, 256});
    write(2, b);
    EXPECT_EQ(errorOf().code, "gguf.duplicate-tensor");
}

TEST_F(GgufSplitModel, CorruptPartReportsItsOwnError) {
    writeAll();
    const std::string path = ggufSplitPartPath(m_dir.path("model"), 2, kParts);
    std::filesystem::resize_file(path, 10);
    const Error error = errorOf();
    EXPECT_EQ(error.code, "gguf.truncated");
    EXPECT_NE(error.message.find(path), std::string::npos) << error.message;
}

TEST_F(GgufSplitModel, UnsplitNameWithSplitCountIsAMismatch) {
    GgufBuilder b = part(0);
    const std::string path = m_dir.path("renamed.gguf");
    ASSERT_EQ(test::writeGguf(path, b.build()), "");
    const auto model = readGgufModel(path);
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.error().code, "gguf.split-mismatch");
}

TEST_F(GgufSplitModel, OnePartModelReadsAsASingleFile) {
    GgufBuilder b("llama");
    b.set("split.no", GgufValue::fromUint(0, GgufValueType::Uint16));
    b.set("split.count", GgufValue::fromUint(1, GgufValueType::Uint16));
    b.addTensor("w", GgmlType::F32, {64});
    const std::string path = ggufSplitPartPath(m_dir.path("single"), 1, 1);
    ASSERT_EQ(test::writeGguf(path, b.build()), "");
    const auto model = readGgufModel(path);
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(model->splitCount, 1u);
    EXPECT_EQ(model->partPaths, std::vector<std::string>{path});
    EXPECT_EQ(model->tensors.size(), 1u);
}

} // namespace
} // namespace llamafit

// The per-model summary the picker lists: llama.cpp's file-type names, the dominant weight
// type when general.file_type is absent, badges and parameters of realistic shapes, the
// built-in cards as rows, and mmproj recognition.

#include "core/library/libraryentry.h"

#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "tests/support/ggufbuilder.h"
#include "tests/support/modelfiles.h"
#include "tests/unit/library/libraryfixtures.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(LibraryEntry, FileTypeNamesFollowLlamaH) {
    EXPECT_EQ(llamaFileTypeName(0), "F32");
    EXPECT_EQ(llamaFileTypeName(7), "Q8_0");
    EXPECT_EQ(llamaFileTypeName(15), "Q4_K_M");
    EXPECT_EQ(llamaFileTypeName(18), "Q6_K");
    EXPECT_EQ(llamaFileTypeName(23), "IQ3_XXS");
    EXPECT_EQ(llamaFileTypeName(32), "BF16");
    EXPECT_EQ(llamaFileTypeName(38), "MXFP4_MOE");
    EXPECT_FALSE(llamaFileTypeName(4).has_value()); // Q4_1_SOME_F16, removed
    EXPECT_FALSE(llamaFileTypeName(1024).has_value());
}

ModelSummary summaryOf(const GgufFile& file) {
    const auto info = interpretModel(file);
    EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().message);
    return info.ok() ? summariseModel(*info, file) : ModelSummary{};
}

TEST(LibraryEntry, QuantisationFallsBackToTheTypeWithMostBytes) {
    auto spec = test::tinyModelSpec();
    auto file = test::retypeWeights(spec.file, GgmlType::Q8_0);
    std::erase_if(file.metadata, [](const auto& kv) { return kv.first == "general.file_type"; });
    file.rebuildIndex();
    EXPECT_EQ(summaryOf(file).quantisation, "Q8_0");
    file.metadata.emplace_back("general.file_type", GgufValue::fromUint(15));
    file.rebuildIndex();
    EXPECT_EQ(summaryOf(file).quantisation, "Q4_K_M");
}

TEST(LibraryEntry, HybridMoeShapeHasItsBadgesAndActiveParameters) {
    const auto shape = test::loadShape("qwen35moe");
    ASSERT_TRUE(shape.ok());
    const auto summary = summaryOf(shape->file);
    EXPECT_TRUE(summary.moe);
    EXPECT_TRUE(summary.recurrent);
    EXPECT_TRUE(summary.hybrid);
    EXPECT_FALSE(summary.mla);
    EXPECT_LT(summary.activeParameterCount, summary.parameterCount);
    EXPECT_GT(summary.activeParameterCount, 0u);
    EXPECT_EQ(summary.architecture, "qwen35moe");
}

TEST(LibraryEntry, SlidingWindowAndMlaBadges) {
    const auto gemma = test::loadShape("gemma3");
    ASSERT_TRUE(gemma.ok());
    EXPECT_TRUE(summaryOf(gemma->file).slidingWindow);
    EXPECT_FALSE(summaryOf(gemma->file).recurrent);
    const auto deepseek = test::loadShape("deepseek2-mla");
    ASSERT_TRUE(deepseek.ok());
    EXPECT_TRUE(summaryOf(deepseek->file).mla);
    const auto mamba = test::loadShape("mamba");
    ASSERT_TRUE(mamba.ok());
    EXPECT_TRUE(summaryOf(mamba->file).recurrent);
    EXPECT_FALSE(summaryOf(mamba->file).hybrid);
}

TEST(LibraryEntry, EveryBuiltinCardIsARowWithoutError) {
    ASSERT_FALSE(builtinModelCards().empty());
    for (const auto& card : builtinModelCards()) {
        SCOPED_TRACE(card.id);
        const auto entry = libraryEntryForCard(card);
        EXPECT_EQ(entry.path, card.id);
        EXPECT_EQ(entry.cardId, card.id);
        EXPECT_EQ(entry.name, card.displayName);
        EXPECT_FALSE(entry.error.has_value());
        EXPECT_GT(entry.summary.parameterCount, 0u);
        EXPECT_GT(entry.summary.fileBytes, 0u);
        EXPECT_FALSE(entry.summary.quantisation.empty());
    }
}

TEST(LibraryEntry, ProjectorRecognition) {
    EXPECT_TRUE(isProjectorFileName("mmproj-model-f16.gguf"));
    EXPECT_TRUE(isProjectorFileName("gemma-3-4b-it-MMPROJ-F16.gguf"));
    EXPECT_FALSE(isProjectorFileName("gemma-3-4b-it-Q4_K_M.gguf"));
    test::LibraryDir dir;
    test::writeProjector(dir.path("vision.gguf"));
    const auto file = readGgufModel(dir.path("vision.gguf"));
    ASSERT_TRUE(file.ok());
    EXPECT_TRUE(isProjectorHeader(*file));
    EXPECT_FALSE(isProjectorHeader(test::tinyModelSpec().file));
}

} // namespace
} // namespace llamafit

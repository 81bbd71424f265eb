// checkLoadable: each file llama.cpp's loader refuses (tests/support/refusedmodels.h) gets its
// named error, and every realistic shape and the tiny model -- files llama-server loads in the
// integration matrix -- pass. (That llama-server refuses the same files: tests/integration/
// refusedmodels_test.cpp.)
#include "core/model/loaderchecks.h"
#include "core/model/modelinterpreter.h"
#include "tests/support/modelfiles.h"
#include "tests/support/refusedmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

Result<bool> interpretAndCheck(const GgufFile& file) {
    Result<ModelInfo> model = interpretModel(file);
    if (!model) {
        return model.error();
    }
    return checkLoadable(file, *model);
}

TEST(LoaderChecks, EachRefusedFileGetsTheLoadersReasonByName) {
    auto models = test::loaderRefusedModels();
    ASSERT_TRUE(models.ok()) << models.error().message;
    ASSERT_GE(models->size(), 9u);
    for (const test::RefusedModel& model : *models) {
        SCOPED_TRACE(model.name);
        Result<bool> checked = interpretAndCheck(model.file);
        ASSERT_FALSE(checked.ok());
        EXPECT_EQ(checked.error().code, model.expectedCode) << checked.error().message;
    }
}

TEST(LoaderChecks, FilesLlamaServerLoadsPass) {
    auto tiny = test::ggufFileForSpec(test::tinyModelSpec());
    ASSERT_TRUE(tiny.ok());
    Result<bool> checked = interpretAndCheck(*tiny);
    EXPECT_TRUE(checked.ok()) << checked.error().message;
    for (const std::string& path : test::shapeFiles()) {
        SCOPED_TRACE(path);
        auto spec = test::loadModelSpecFile(path);
        ASSERT_TRUE(spec.ok()) << spec.error().message;
        auto file = test::ggufFileForSpec(*spec);
        ASSERT_TRUE(file.ok()) << file.error().message;
        checked = interpretAndCheck(*file);
        EXPECT_TRUE(checked.ok()) << checked.error().message;
    }
}

TEST(LoaderChecks, AnEmbeddingModelWithoutVocabularyIsAccepted) {
    auto file = test::ggufFileForSpec(test::tinyModelSpec());
    ASSERT_TRUE(file.ok());
    std::erase_if(file->metadata, [](const auto& entry) { return entry.first == "tokenizer.ggml.tokens"; });
    for (auto& [key, value] : file->metadata) {
        if (key == "tokenizer.ggml.model") {
            value = GgufValue::fromString("none"); // llama.cpp's LLAMA_VOCAB_TYPE_NONE
        }
    }
    file->rebuildIndex();
    Result<bool> checked = interpretAndCheck(*file);
    EXPECT_TRUE(checked.ok()) << checked.error().message;
}

} // namespace
} // namespace llamafit

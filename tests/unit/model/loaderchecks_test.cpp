// checkLoadable: each file llama.cpp's loader refuses (tests/support/refusedmodels.h) gets its
// named error, and every realistic shape and the tiny model -- files llama-server loads in the
// integration matrix -- pass. (That llama-server refuses the same files: tests/integration/
// refusedmodels_test.cpp.)
#include "core/model/loaderchecks.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"
#include "core/model/tensorshapechecks.h"
#include "tests/support/ggufedit.h"
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
    ASSERT_GE(models->size(), 19u);
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

// The built-in cards carry the dimensions of real published models (and no tokenizer, so their
// vocabulary size stands in for the token count): the shape rules must accept every one.
TEST(LoaderChecks, EveryBuiltinCardHasTheTensorShapesItsMetadataImplies) {
    ASSERT_FALSE(builtinModelCards().empty());
    for (const ModelSpec& card : builtinModelCards()) {
        SCOPED_TRACE(card.id);
        Result<ModelInfo> model = interpretModel(card.file);
        ASSERT_TRUE(model.ok()) << model.error().message;
        Result<bool> checked = checkTensorShapes(card.file, *model, card.vocabularySize);
        EXPECT_TRUE(checked.ok()) << checked.error().message;
    }
}

// src/llama-model.cpp creates every ffn_*_exps tensor as {.., .., n_expert}.
TEST(LoaderChecks, ExpertTensorsMustHoldExpertCountExperts) {
    auto spec = test::loadModelSpecFile(test::shapesDirectory() + "/qwen3moe.json");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    auto file = test::ggufFileForSpec(*spec);
    ASSERT_TRUE(file.ok()) << file.error().message;
    test::setMetadataKey(*file, "qwen3moe.expert_count", GgufValue::fromUint(64)); // the tensors hold 128
    file->rebuildIndex();
    Result<bool> checked = interpretAndCheck(*file);
    ASSERT_FALSE(checked.ok());
    EXPECT_EQ(checked.error().code, "model.wrong-tensor-shape");
    EXPECT_NE(checked.error().message.find("_exps.weight' has wrong shape"), std::string::npos)
        << checked.error().message;
}

// An architecture LlamaFit does not know keeps the generic rules: no shape is guessed for it.
TEST(LoaderChecks, AnUnknownArchitectureIsNotShapeChecked) {
    auto file = test::ggufFileForSpec(test::tinyModelSpec());
    ASSERT_TRUE(file.ok());
    Result<ModelInfo> model = interpretModel(*file);
    ASSERT_TRUE(model.ok());
    for (GgufTensorInfo& tensor : file->tensors) {
        if (tensor.name == "blk.0.attn_k.weight") {
            std::swap(tensor.shape[0], tensor.shape[1]);
        }
    }
    file->rebuildIndex();
    EXPECT_FALSE(checkTensorShapes(*file, *model, 288).ok());
    model->knownArchitecture = false;
    EXPECT_TRUE(checkTensorShapes(*file, *model, 288).ok());
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

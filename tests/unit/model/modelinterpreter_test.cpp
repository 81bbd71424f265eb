// interpretModel on dense transformers, MLA, NextN, tied output, unknown architectures and
// the error codes. Shapes are the published configs of the named models.
#include "core/common/units.h"
#include "core/model/modelinterpreter.h"
#include "tests/unit/model/modeltestshapes.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

using test::GgufBuilder;
using test::layersWhere;
using test::range;
using test::transformer;

bool containsText(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const auto& line) { return line.find(text) != std::string::npos; });
}

// Llama-3-8B: 32 layers, n_embd 4096, 32 heads, 8 KV heads, n_ff 14336, V 128 256, untied.
GgufBuilder llama3_8b() {
    auto b = transformer({"llama", 32, 4096, 32, 8, 14336, 8192});
    b.setString("general.name", "Meta-Llama-3-8B");
    b.addTensor("token_embd.weight", GgmlType::Q4_K, {4096, 128256});
    b.addTensor("output_norm.weight", GgmlType::F32, {4096});
    b.addTensor("output.weight", GgmlType::Q6_K, {4096, 128256});
    b.addTensor("blk.0.attn_q.weight", GgmlType::Q4_K, {4096, 4096});
    return b;
}

TEST(ModelInterpreter, Llama3_8bIsThirtyTwoFullAttentionLayersOf8KvHeadsBy128) {
    const auto info = interpretModel(llama3_8b().build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->architecture, "llama");
    EXPECT_EQ(info->name, "Meta-Llama-3-8B");
    EXPECT_TRUE(info->knownArchitecture);
    EXPECT_TRUE(info->warnings.empty());
    EXPECT_EQ(info->blockCount, 32u);
    EXPECT_EQ(info->trunkLayerCount(), 32u);
    EXPECT_EQ(info->trainingContext, 8192u);
    EXPECT_EQ(info->headCount, 32u);
    EXPECT_EQ(info->vocabularySize, 128256u); // from token_embd ne1: no tokenizer list in this file
    EXPECT_FALSE(info->tiedOutput);
    EXPECT_FALSE(info->mla);
    ASSERT_EQ(info->layers.size(), 32u);
    for (const auto& layer : info->layers) {
        EXPECT_EQ(layer.attention, AttentionKind::Full);
        EXPECT_TRUE(layer.hasKv);
        EXPECT_FALSE(layer.recurrent);
        EXPECT_EQ(layer.headCountKv, 8u);
        EXPECT_EQ(layer.keyHeadDim, 128u); // n_embd / n_head
        EXPECT_EQ(layer.valueHeadDim, 128u);
        EXPECT_EQ(layer.feedForwardLength, 14336u);
    }
    // §7 row 19: -c 32768 f16 KV = 4096 MiB.
    EXPECT_EQ(test::f16KvBytesPerToken(*info) * 32768, 4096 * kMiB);
}

TEST(ModelInterpreter, KeyLengthOverridesEmbdOverHeads) {
    // Qwen3-0.6B: n_embd 1024 with 16 heads but head_dim 128 (not 64), 8 KV heads.
    auto b = transformer({"qwen3", 28, 1024, 16, 8, 3072, 40960});
    b.setUint32(b.key("attention.key_length"), 128).setUint32(b.key("attention.value_length"), 128);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->layers[0].keyHeadDim, 128u);
    EXPECT_EQ(info->layers[27].valueHeadDim, 128u);
    EXPECT_EQ(test::f16KvBytesPerToken(*info), 28u * 8 * 256 * 2);
}

TEST(ModelInterpreter, HeadCountKvDefaultsToHeadCount) {
    // load_hparams: "n_head_kv is optional, default to n_head".
    const auto info = interpretModel(transformer({"qwen2", 4, 512, 8, 0, 1024}).build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->layers[3].headCountKv, 8u);
    EXPECT_EQ(info->layers[3].keyHeadDim, 64u);
    // A known architecture: llama.cpp's own default, not a guess worth a warning.
    EXPECT_FALSE(containsText(info->warnings, "head_count_kv"));
}

TEST(ModelInterpreter, PerLayerHeadCountKvArraySetsEachLayer) {
    auto b = transformer({"llama", 4, 1024, 16, 0, 2816});
    b.setUint32Array(b.key("attention.head_count_kv"), {8, 4, 0, 2});
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->layers[0].headCountKv, 8u);
    EXPECT_EQ(info->layers[1].headCountKv, 4u);
    EXPECT_EQ(info->layers[3].headCountKv, 2u);
    // A layer with no KV heads caches nothing (a zero-width K/V in llama.cpp).
    EXPECT_FALSE(info->layers[2].hasKv);
    EXPECT_EQ(info->layers[2].attention, AttentionKind::None);
    EXPECT_EQ(test::f16KvBytesPerToken(*info), (8u + 4 + 2) * 64 * 2 * 2);
}

TEST(ModelInterpreter, PerLayerFeedForwardArray) {
    auto b = transformer({"llama", 3, 256, 4, 4, 0});
    b.setUint32Array(b.key("feed_forward_length"), {512, 768, 1024});
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->layers[0].feedForwardLength, 512u);
    EXPECT_EQ(info->layers[2].feedForwardLength, 1024u);
}

TEST(ModelInterpreter, TiedOutputWhenThereIsNoOutputWeight) {
    auto b = transformer({"llama", 16, 2048, 32, 8, 8192, 131072});
    b.addTensor("token_embd.weight", GgmlType::F16, {2048, 128256});
    b.addTensor("output_norm.weight", GgmlType::F32, {2048});
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_TRUE(info->tiedOutput);
    EXPECT_FALSE(interpretModel(llama3_8b().build())->tiedOutput);
}

TEST(ModelInterpreter, VocabularyPrefersTheTokenizerList) {
    auto b = transformer({"llama", 2, 256, 4, 4, 512});
    b.setStringArray("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a", "b"});
    b.setUint32(b.key("vocab_size"), 999);
    b.addTensor("token_embd.weight", GgmlType::F16, {256, 777});
    EXPECT_EQ(interpretModel(b.build())->vocabularySize, 5u);

    auto noList = transformer({"llama", 2, 256, 4, 4, 512});
    noList.setUint32(noList.key("vocab_size"), 999);
    noList.addTensor("token_embd.weight", GgmlType::F16, {256, 777});
    EXPECT_EQ(interpretModel(noList.build())->vocabularySize, 999u);
}

TEST(ModelInterpreter, MixtureOfExpertsCounts) {
    // Qwen3-30B-A3B: 48 layers, 128 experts, 8 used, expert n_ff 768.
    auto b = transformer({"qwen3moe", 48, 2048, 32, 4, 6144});
    b.setUint32(b.key("expert_count"), 128).setUint32(b.key("expert_used_count"), 8);
    b.setUint32(b.key("expert_feed_forward_length"), 768).setUint32(b.key("attention.key_length"), 128);
    b.setUint32(b.key("attention.value_length"), 128);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_TRUE(info->isMoe());
    EXPECT_EQ(info->expertCount, 128u);
    EXPECT_EQ(info->expertUsedCount, 8u);
    EXPECT_EQ(info->expertFeedForwardLength, 768u);
    EXPECT_EQ(info->layers[10].keyHeadDim, 128u);
}

TEST(ModelInterpreter, Mistral3IsAPlainTransformer) {
    // Ministral-3-8B: 34 layers, n_embd 4096, 32 heads, 8 KV heads, head_dim 128.
    auto b = transformer({"mistral3", 34, 4096, 32, 8, 14336, 262144});
    b.setUint32(b.key("attention.key_length"), 128).setUint32(b.key("attention.value_length"), 128);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_TRUE(info->knownArchitecture);
    EXPECT_EQ(layersWhere(*info, [](const auto& l) { return l.hasKv; }).size(), 34u);
    EXPECT_FALSE(info->hasSlidingWindowLayers());
}

// DeepSeek-V3 as converted today: K = kv_lora_rank + rope = 576, V = 512, one KV head, *_mla set.
GgufBuilder deepseekV3(bool mlaKeys) {
    auto b = transformer({"deepseek2", 62, 7168, 128, mlaKeys ? 1u : 128u, 18432, 163840});
    b.setUint32(b.key("attention.key_length"), mlaKeys ? 576 : 192);
    b.setUint32(b.key("attention.value_length"), mlaKeys ? 512 : 128);
    if (mlaKeys) {
        b.setUint32(b.key("attention.key_length_mla"), 192)
            .setUint32(b.key("attention.value_length_mla"), 128);
    }
    b.setUint32(b.key("nextn_predict_layers"), 1);
    b.setUint32(b.key("expert_count"), 256).setUint32(b.key("expert_used_count"), 8);
    return b;
}

TEST(ModelInterpreter, DeepSeekMlaCachesOnly576WideKeys) {
    const auto info = interpretModel(deepseekV3(true).build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_TRUE(info->mla);
    EXPECT_EQ(info->trunkLayerCount(), 61u);
    const auto& layer = info->layers[5];
    EXPECT_EQ(layer.headCountKv, 1u);
    EXPECT_EQ(layer.keyHeadDim, 576u);
    EXPECT_EQ(layer.valueHeadDim, 0u); // no V tensor: V is a view of K
    // Reference §2.2: DeepSeek-V3 f16 = 61 layers x 576 x 2 B = 70 272 B/token (NextN block excluded).
    EXPECT_EQ(test::f16KvBytesPerToken(*info), 70272u);
}

TEST(ModelInterpreter, DeepSeekWithoutMlaKeysIsNotMlaInTheCacheSense) {
    const auto info = interpretModel(deepseekV3(false).build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_FALSE(info->mla);
    EXPECT_EQ(info->layers[0].headCountKv, 128u);
    EXPECT_EQ(info->layers[0].keyHeadDim, 192u);
    EXPECT_EQ(info->layers[0].valueHeadDim, 128u);
}

TEST(ModelInterpreter, NextnBlocksAreExcludedFromTheMainCache) {
    // GLM-4.5-Air: 46 trunk layers + 1 NextN block. The b11669 binary logged 2 KV layers for a
    // 3-block glm4 file with nextn_predict_layers = 1.
    auto b = transformer({"glm4moe", 47, 4096, 96, 8, 10944, 131072});
    b.setUint32(b.key("nextn_predict_layers"), 1).setUint32(b.key("attention.key_length"), 128);
    b.setUint32(b.key("attention.value_length"), 128);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->nextnLayerCount, 1u);
    EXPECT_EQ(info->trunkLayerCount(), 46u);
    EXPECT_TRUE(info->layers[46].nextn);
    EXPECT_FALSE(info->layers[46].hasKv);
    EXPECT_EQ(info->layers[46].attention, AttentionKind::Full);
    EXPECT_FALSE(info->layers[45].nextn);
    EXPECT_TRUE(info->layers[45].hasKv);
    EXPECT_EQ(layersWhere(*info, [](const auto& l) { return l.hasKv; }), range(0, 46));
}

TEST(ModelInterpreter, NextnKeyIsIgnoredWhereLlamaCppDoesNotReadIt) {
    auto b = transformer({"llama", 8, 512, 8, 8, 1024});
    b.setUint32(b.key("nextn_predict_layers"), 1);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->nextnLayerCount, 0u);
    EXPECT_TRUE(info->layers[7].hasKv);
    EXPECT_TRUE(containsText(info->warnings, "nextn_predict_layers is ignored"));
}

TEST(ModelInterpreter, UnknownArchitectureUsesGenericRulesAndSaysSo) {
    GgufBuilder b("zebra9");
    b.setUint32(b.key("block_count"), 6).setUint32(b.key("context_length"), 2048);
    b.setUint32(b.key("embedding_length"), 768).setUint32(b.key("attention.head_count"), 12);
    b.setUint32(b.key("attention.sliding_window"), 256);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_FALSE(info->knownArchitecture);
    EXPECT_EQ(info->layers.size(), 6u);
    for (const auto& layer : info->layers) {
        EXPECT_EQ(layer.attention, AttentionKind::Full);
        EXPECT_TRUE(layer.hasKv);
        EXPECT_EQ(layer.headCountKv, 12u); // head_count_kv defaults to head_count
        EXPECT_EQ(layer.keyHeadDim, 64u);  // 768 / 12
    }
    ASSERT_FALSE(info->warnings.empty());
    EXPECT_NE(info->warnings.front().find("zebra9"), std::string::npos);
    EXPECT_TRUE(containsText(info->warnings, "head_count_kv is missing"));
    EXPECT_TRUE(containsText(info->warnings, "key_length is missing"));
    EXPECT_TRUE(containsText(info->warnings, "sliding_window is present"));
}

TEST(ModelInterpreter, UnknownRecurrentLookingModelWarnsAboutTheMissingState) {
    auto b = transformer({"newhybrid", 4, 512, 8, 8, 1024});
    b.setUint32(b.key("ssm.conv_kernel"), 4);
    const auto info = interpretModel(b.build());
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_TRUE(containsText(info->warnings, "no recurrent state is sized"));
}

TEST(ModelInterpreter, ModelNameFallsBackToTheFileName) {
    GgufFile file = transformer({"llama", 2, 256, 4, 4, 512}).build();
    file.partPaths = {"/models/Tiny-Llama-Q8_0.gguf"};
    EXPECT_EQ(interpretModel(file)->name, "Tiny-Llama-Q8_0");
}

TEST(ModelInterpreterErrors, MissingArchitecture) {
    GgufBuilder b;
    b.setUint32("llama.block_count", 2);
    const auto info = interpretModel(b.build());
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.error().code, "model.missing-architecture");
}

TEST(ModelInterpreterErrors, MissingBlockCountEmbeddingOrContext) {
    for (const std::string key : {"llama.block_count", "llama.embedding_length", "llama.context_length"}) {
        GgufFile file = transformer({"llama", 2, 256, 4, 4, 512}).build();
        file.metadata.erase(std::remove_if(file.metadata.begin(), file.metadata.end(),
                                           [&](const auto& kv) { return kv.first == key; }),
                            file.metadata.end());
        file.rebuildIndex();
        const auto info = interpretModel(file);
        ASSERT_FALSE(info.ok()) << key;
        EXPECT_EQ(info.error().code, "model.missing-key") << key;
        EXPECT_NE(info.error().message.find(key), std::string::npos) << info.error().message;
    }
}

TEST(ModelInterpreterErrors, ZeroHeadsIsABadValue) {
    const auto info = interpretModel(transformer({"llama", 2, 256, 0, 0, 512}).build());
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.error().code, "model.bad-value");
}

TEST(ModelInterpreterErrors, ArrayOfTheWrongLengthIsABadValue) {
    auto b = transformer({"llama", 4, 256, 4, 4, 512});
    b.setUint32Array(b.key("attention.head_count_kv"), {4, 4, 4});
    const auto info = interpretModel(b.build());
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.error().code, "model.bad-value");
    EXPECT_NE(info.error().message.find("expected 4"), std::string::npos) << info.error().message;
}

TEST(ModelInterpreterErrors, ImpossibleExpertAndNextnCounts) {
    auto experts = transformer({"qwen3moe", 4, 256, 4, 4, 512});
    experts.setUint32(experts.key("expert_count"), 8).setUint32(experts.key("expert_used_count"), 9);
    EXPECT_EQ(interpretModel(experts.build()).error().code, "model.bad-value");

    auto nextn = transformer({"glm4moe", 4, 256, 4, 4, 512});
    nextn.setUint32(nextn.key("nextn_predict_layers"), 4);
    EXPECT_EQ(interpretModel(nextn.build()).error().code, "model.bad-value");

    auto zeroBlocks = transformer({"llama", 0, 256, 4, 4, 512});
    EXPECT_EQ(interpretModel(zeroBlocks.build()).error().code, "model.bad-value");
}

TEST(ModelInterpreter, KnownArchitecturesCoverTheRequiredFamilies) {
    const auto& known = knownArchitectures();
    for (const std::string_view name :
         {"llama",     "qwen2",   "qwen3",     "qwen3moe",      "mistral3",   "gemma2",
          "gemma3",    "gemma3n", "gemma4",    "gpt-oss",       "cohere2",    "deepseek2",
          "qwen3next", "qwen35",  "qwen35moe", "granitehybrid", "nemotron_h", "jamba",
          "falcon-h1", "lfm2",    "mamba",     "mamba2",        "rwkv6",      "rwkv7"}) {
        EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name;
    }
    EXPECT_EQ(std::find(known.begin(), known.end(), "zebra9"), known.end());
}

} // namespace
} // namespace llamafit

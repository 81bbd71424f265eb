// ModelSpec: the JSON format, the built-in cards, the realistic shapes, and the round trip
// spec -> GGUF file on disk -> readGgufModel. Expected sizes marked "measured" come from the
// real llama-server 0.7.0 logs in llama-cpp-memory.md section 7.
#include "core/model/modelspec.h"

#include "core/common/units.h"
#include "core/gguf/ggufreader.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace llamafit {
namespace {

using test::ModelFileOptions;

// A small valid spec; tests splice one field in to make it wrong.
std::string smallSpec(const std::string& tensors, const std::string& extraMetadata = {}) {
    return R"({"id": "t", "name": "T", "source": "unit test", "vocabulary_size": 300,
      "metadata": [
        {"key": "general.architecture", "type": "string", "value": "llama"},
        {"key": "llama.block_count", "type": "u32", "value": 8})" +
           extraMetadata + R"(],
      "tensors": [)" +
           tensors + "]}";
}

std::vector<std::string> tensorNames(const ModelSpec& spec) {
    std::vector<std::string> names;
    for (const auto& tensor : spec.file.tensors) {
        names.push_back(tensor.name);
    }
    return names;
}

std::string errorCode(std::string_view json) {
    auto spec = parseModelSpec(json);
    return spec ? std::string("ok") : spec.error().code;
}

TEST(ModelSpecFormat, ExpandsTemplatesBlockByBlockWithEverySelector) {
    const auto spec = parseModelSpec(smallSpec(R"(
        {"name": "token_embd.weight", "type": "q8_0", "shape": [64, 300]},
        {"name": "blk.{i}.a.weight", "type": "f32", "shape": [64], "layers": "all"},
        {"name": "blk.{i}.b.weight", "type": "q8_0", "shape": [64, 3], "layers": {"every": 4, "offset": 3}},
        {"name": "blk.{i}.c.weight", "type": "f16", "shape": [5], "layers": {"except_every": 4, "offset": 3}},
        {"name": "output.weight", "type": "q6_K", "shape": [256, 300]})"));
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    const auto names = tensorNames(*spec);
    ASSERT_EQ(names.size(), 2u + 8u + 2u + 6u);
    EXPECT_EQ(names[0], "token_embd.weight");
    EXPECT_EQ(names[1], "blk.0.a.weight");
    EXPECT_EQ(names[2], "blk.0.c.weight");
    EXPECT_EQ(names[7], "blk.3.a.weight");
    EXPECT_EQ(names[8], "blk.3.b.weight");
    EXPECT_EQ(names[9], "blk.4.a.weight");
    EXPECT_EQ(names.back(), "output.weight");
    EXPECT_EQ(spec->file.findTensor("blk.7.b.weight")->shape[1], 3u);
    EXPECT_EQ(spec->file.findTensor("blk.6.b.weight"), nullptr);
    EXPECT_EQ(spec->file.findTensor("blk.7.c.weight"), nullptr);
}

TEST(ModelSpecFormat, ComputesBytesAndAlignedOffsets) {
    const auto spec = parseModelSpec(smallSpec(R"(
        {"name": "blk.{i}.c.weight", "type": "f16", "shape": [5], "layers": [0, 1]},
        {"name": "x.weight", "type": "q8_0", "shape": [64, 3]},
        {"name": "y.weight", "type": "q6_K", "shape": [512, 2, 3]})"));
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    const auto& t = spec->file.tensors;
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t[0].bytes, 10u);
    EXPECT_EQ(t[1].dataOffset, 32u); // gguf.cpp pads every tensor to general.alignment (32)
    EXPECT_EQ(t[2].bytes, 3u * 2u * 34u);
    EXPECT_EQ(t[2].dataOffset, 64u);
    EXPECT_EQ(t[3].dimensionCount, 3u);
    EXPECT_EQ(t[3].bytes, 6u * 2u * 210u);
    EXPECT_EQ(t[3].dataOffset, padTo(64 + 204, 32));
    EXPECT_EQ(spec->file.fileBytes, padTo(t[3].dataOffset + t[3].bytes, 32));
}

TEST(ModelSpecFormat, OtherLayerSelectors) {
    const auto spec = parseModelSpec(smallSpec(R"(
        {"name": "blk.{i}.r.weight", "type": "f32", "shape": [4], "layers": {"from": 2, "to": 5}},
        {"name": "blk.{i}.e.weight", "type": "f32", "shape": [4], "layers": {"except": [0, 7]}})"));
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(spec->file.findTensor("blk.1.r.weight"), nullptr);
    EXPECT_NE(spec->file.findTensor("blk.2.r.weight"), nullptr);
    EXPECT_NE(spec->file.findTensor("blk.4.r.weight"), nullptr);
    EXPECT_EQ(spec->file.findTensor("blk.5.r.weight"), nullptr);
    EXPECT_EQ(spec->file.findTensor("blk.0.e.weight"), nullptr);
    EXPECT_NE(spec->file.findTensor("blk.6.e.weight"), nullptr);
    EXPECT_EQ(spec->file.findTensor("blk.7.e.weight"), nullptr);
}

TEST(ModelSpecFormat, TypedMetadataAndPerLayerArrays) {
    const auto spec = parseModelSpec(smallSpec(R"({"name": "n.weight", "type": "f32", "shape": [4]})", R"(,
        {"key": "a.u8", "type": "u8", "value": 200},
        {"key": "a.i32", "type": "i32", "value": -5},
        {"key": "a.f32", "type": "f32", "value": 1e-6},
        {"key": "a.bool", "type": "bool", "value": true},
        {"key": "a.ints", "type": "i32[]", "value": [11, 11, 10, 0]},
        {"key": "a.bools", "type": "bool[]", "value": [true, false]},
        {"key": "a.kv", "type": "u32[]", "per_layer": {"default": 0, "set": [{"layers": {"every": 4, "offset": 3}, "value": 2}]}})"));
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    const auto& file = spec->file;
    EXPECT_EQ(file.getString("general.architecture"), "llama");
    EXPECT_EQ(file.find("a.u8")->type, GgufValueType::Uint8);
    EXPECT_EQ(file.getUint("a.u8"), 200u);
    EXPECT_EQ(file.getInt("a.i32"), -5);
    EXPECT_NEAR(*file.getFloat("a.f32"), 1e-6, 1e-12);
    EXPECT_EQ(file.getBool("a.bool"), true);
    EXPECT_EQ(file.getIntArray("a.ints"), (std::vector<std::int64_t>{11, 11, 10, 0}));
    EXPECT_EQ(file.getIntArray("a.bools"), (std::vector<std::int64_t>{1, 0}));
    EXPECT_EQ(file.getIntArray("a.kv"), (std::vector<std::int64_t>{0, 0, 0, 2, 0, 0, 0, 2}));
}

TEST(ModelSpecErrors, NamedErrorCodes) {
    const std::string okTensor = R"({"name": "n.weight", "type": "f32", "shape": [4]})";
    EXPECT_EQ(errorCode(smallSpec(okTensor)), "ok");
    EXPECT_EQ(errorCode("{not json"), "spec.bad-json");
    EXPECT_EQ(errorCode("[1, 2]"), "spec.bad-json");
    EXPECT_EQ(errorCode(R"({"name": "x"})"), "spec.missing-field");
    EXPECT_EQ(errorCode(smallSpec(okTensor, R"(, {"key": "k", "type": "u32"})")), "spec.missing-field");
    EXPECT_EQ(errorCode(R"({"id": "t", "name": "T", "source": "s", "vocabulary_size": 300,
        "metadata": [], "tensors": []})"),
              "spec.missing-field");
    EXPECT_EQ(errorCode(R"({"id": 5, "name": "T", "source": "s", "vocabulary_size": 300,
        "metadata": [], "tensors": []})"),
              "spec.bad-json");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "n.weight", "type": "q9_9", "shape": [32]})")),
              "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "n.weight", "type": "q8_0", "shape": [33]})")),
              "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "n.weight", "type": "f32", "shape": [4, 0]})")),
              "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "n.weight", "type": "f32", "shape": [1, 1, 1, 1, 1]})")),
              "spec.bad-tensor");
    EXPECT_EQ(
        errorCode(smallSpec(
            R"({"name": "blk.{i}.n", "type": "f32", "shape": [4], "layers": {"every": 4, "offset": 4}})")),
        "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "blk.{i}.n", "type": "f32", "shape": [4], "layers": [8]})")),
              "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "n", "type": "f32", "shape": [4], "layers": "all"})")),
              "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(okTensor + "," + okTensor)), "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "token_embd.weight", "type": "f32", "shape": [4, 299]})")),
              "spec.bad-tensor");
    EXPECT_EQ(errorCode(smallSpec(okTensor, R"(, {"key": "k", "type": "u31", "value": 1})")),
              "spec.bad-metadata");
    EXPECT_EQ(errorCode(smallSpec(okTensor, R"(, {"key": "k", "type": "u8", "value": 300})")),
              "spec.bad-metadata");
    EXPECT_EQ(errorCode(smallSpec(okTensor, R"(, {"key": "k", "type": "u32", "value": -1})")),
              "spec.bad-metadata");
    EXPECT_EQ(errorCode(smallSpec(okTensor, R"(, {"key": "k", "type": "string", "value": 1})")),
              "spec.bad-metadata");
    EXPECT_EQ(errorCode(smallSpec(okTensor, R"(, {"key": "llama.block_count", "type": "u32", "value": 8})")),
              "spec.bad-metadata");
    EXPECT_EQ(errorCode(smallSpec(R"({"name": "n.weight", "type": "f32", "shape": [4], "layer": "all"})")),
              "spec.bad-json");
    // Found by fuzz_modelspec: a metadata key that is a number threw from the architecture search
    // (nlohmann's value() with a string default) instead of naming the entry.
    EXPECT_EQ(errorCode(smallSpec(okTensor, R"(, {"key": 7, "type": "u32", "value": 1})")), "spec.bad-json");
}

TEST(BuiltinModelCards, AllParseWithSourcesAndUniqueIds) {
    for (const auto& error : builtinModelCardErrors()) {
        ADD_FAILURE() << error.code << ": " << error.message;
    }
    const auto& cards = builtinModelCards();
    std::set<std::string> ids;
    for (const auto& card : cards) {
        EXPECT_TRUE(ids.insert(card.id).second) << card.id;
        EXPECT_FALSE(card.source.empty()) << card.id;
        EXPECT_FALSE(card.file.tensors.empty()) << card.id;
    }
    for (const char* id :
         {"qwen3.5-35b-a3b-q6_k", "llama-3-8b-q4_k_m", "qwen2.5-32b-q4_k_m", "qwen3.5-4b-q4_k_m",
          "qwen3-30b-a3b-q4_k_m", "llama-3.2-1b-q8_0", "gemma-3-12b-q4_k_m", "gpt-oss-20b-mxfp4"}) {
        EXPECT_TRUE(ids.count(id)) << id;
    }
    EXPECT_TRUE(findBuiltinModelCard(defaultModelCardId()).ok());
    const auto missing = findBuiltinModelCard("no-such-card");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, "spec.unknown-card");
}

TEST(ModelSpec, AHuggingFaceSourceIsARepoIdAndAQuant) {
    const std::string tensors = R"({"name": "token_embd.weight", "type": "f16", "shape": [64, 300]})";
    const auto withSource = [&](const std::string& source) {
        std::string text = smallSpec(tensors);
        text.insert(text.find(R"("vocabulary_size")"), source + ", ");
        return parseModelSpec(text);
    };
    const auto spec = withSource(R"("huggingface": {"repo": "unsloth/Qwen3-8B-GGUF", "quant": "Q4_K_M"})");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(spec->hubRepo, "unsloth/Qwen3-8B-GGUF");
    EXPECT_EQ(spec->hubQuant, "Q4_K_M");
    EXPECT_EQ(withSource(R"("huggingface": {"repo": "ggml-org/gpt-oss-20b-GGUF"})")->hubQuant, "");
    for (const char* bad :
         {R"("huggingface": {"repo": "../x"})", R"("huggingface": "unsloth/x")",
          R"("huggingface": {"quant": "Q4_K_M"})", R"("huggingface": {"repo": "a/b", "branch": "x"})"}) {
        const auto refused = withSource(bad);
        ASSERT_FALSE(refused.ok()) << bad;
        EXPECT_TRUE(refused.error().code.starts_with("spec.")) << refused.error().code;
    }
    // The seed's model card names the repo its author downloaded from.
    const auto seed = findBuiltinModelCard("qwen3.5-35b-a3b-q6_k");
    ASSERT_TRUE(seed.ok());
    EXPECT_EQ(seed->hubRepo, "unsloth/Qwen3.5-35B-A3B-GGUF");
    EXPECT_EQ(seed->hubQuant, "Q6_K");
}

TEST(BuiltinModelCards, Qwen35CardMatchesThePublishedQ6KFile) {
    const auto card = findBuiltinModelCard("qwen3.5-35b-a3b-q6_k");
    ASSERT_TRUE(card.ok());
    // The published Qwen3.5-35B-A3B Q6_K holds 26.55 GiB of weights.
    EXPECT_NEAR(toGiB(card->file.tensorBytes()), 26.55, 26.55 * 0.005);
    EXPECT_EQ(card->vocabularySize, 248320u);
    EXPECT_EQ(card->file.getUint("qwen35moe.block_count"), 40u);
    int deltaNetLayers = 0, attentionLayers = 0;
    for (const auto& tensor : card->file.tensors) {
        deltaNetLayers += tensor.name.ends_with("attn_qkv.weight");
        attentionLayers += tensor.name.ends_with("attn_q.weight");
    }
    EXPECT_EQ(deltaNetLayers, 30);
    EXPECT_EQ(attentionLayers, 10);
}

TEST(BuiltinModelCards, Llama3Card) {
    const auto card = findBuiltinModelCard("llama-3-8b-q4_k_m");
    ASSERT_TRUE(card.ok());
    EXPECT_NEAR(toGiB(card->file.tensorBytes()), 4.58, 0.01); // Meta-Llama-3-8B-Instruct Q4_K_M
    // llama-quant's use_more_bits picks 16 of 32 layers for Q6_K attn_v / ffn_down.
    int q6k = 0;
    for (const auto& tensor : card->file.tensors) {
        q6k += tensor.type == GgmlType::Q6_K && tensor.name.ends_with("ffn_down.weight");
    }
    EXPECT_EQ(q6k, 16);
}

TEST(RealisticShapes, AllParseWithUniqueIds) {
    const auto files = test::shapeFiles();
    ASSERT_GE(files.size(), 8u) << "no shapes in " << test::shapesDirectory();
    std::set<std::string> ids;
    for (const auto& path : files) {
        const auto spec = test::loadModelSpecFile(path);
        ASSERT_TRUE(spec.ok()) << spec.error().message;
        EXPECT_TRUE(ids.insert(spec->id).second) << spec->id;
        EXPECT_FALSE(spec->source.empty()) << path;
    }
}

TEST(RealisticShapes, SizesMatchTheMeasuredServerBuffers) {
    // llama-cpp-memory.md section 7: CPU_Mapped model buffer of the real server.
    const auto llama = test::loadShape("llama");
    ASSERT_TRUE(llama.ok()) << llama.error().message;
    EXPECT_NEAR(toMiB(llama->file.tensorBytes()), 2357.26, 0.005); // row 1 (F16)
    const auto q8 = test::retypeWeights(llama->file, GgmlType::Q8_0);
    EXPECT_NEAR(toMiB(q8.tensorBytes()), 1252.41, 0.005); // row 10 (same shape in Q8_0)
    EXPECT_EQ(q8.findTensor("blk.0.attn_norm.weight")->type, GgmlType::F32);
    const auto qwen = test::loadShape("qwen35moe");
    ASSERT_TRUE(qwen.ok()) << qwen.error().message;
    EXPECT_NEAR(toMiB(qwen->file.tensorBytes()), 35183.10, 0.005); // row 14
    EXPECT_EQ(qwen->file.findTensor("blk.0.ffn_gate_inp.weight")->type, GgmlType::F32);
    EXPECT_EQ(qwen->file.findTensor("blk.0.ssm_conv1d.weight")->type, GgmlType::F32);
}

class ModelFilesOnDisk : public ::testing::Test {
  protected:
    void SetUp() override {
        m_folder = std::filesystem::temp_directory_path() /
                   ("llamafit-modelspec-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_folder);
    }
    void TearDown() override { std::filesystem::remove_all(m_folder); }
    std::string path(const std::string& name) const { return (m_folder / name).string(); }

    // Writes the spec, reads it back with the real GGUF reader and compares everything the
    // file carries: metadata in order (tokenizer included) and the whole tensor table.
    void expectRoundTrip(const ModelSpec& spec, const ModelFileOptions& options = {}) {
        const std::string file = path(spec.id + ".gguf");
        const auto written = test::writeSpecAsGguf(spec, file, options);
        ASSERT_TRUE(written.ok()) << written.error().message;
        const auto read = readGgufModel(file);
        ASSERT_TRUE(read.ok()) << spec.id << ": " << read.error().code << " " << read.error().message;
        EXPECT_EQ(read->metadata, written->metadata) << spec.id;
        EXPECT_EQ(read->tensors, written->tensors) << spec.id;
        EXPECT_EQ(read->alignment, 32u);
        // Spec metadata comes first, untouched.
        for (std::size_t n = 0; n < spec.file.metadata.size(); ++n) {
            EXPECT_EQ(read->metadata[n], spec.file.metadata[n]) << spec.id << " key " << n;
        }
        if (!options.weightType) {
            EXPECT_EQ(read->tensors, spec.file.tensors) << spec.id;
        }
        EXPECT_EQ(read->arrayLength("tokenizer.ggml.tokens"), spec.vocabularySize);
    }

    std::filesystem::path m_folder;
};

// The tensor tables and metadata of every shape and card. The generated tokenizer is the
// same code for all of them and dominates the time (250k strings), so these use the smallest
// one; the full-size tokenizer round trip is FullVocabularyRoundTrip.
ModelSpec withSmallTokenizer(ModelSpec spec) {
    spec.vocabularySize = 259;
    return spec;
}

TEST_F(ModelFilesOnDisk, EveryShapeRoundTripsThroughTheReader) {
    for (const auto& shape : test::shapeFiles()) {
        const auto spec = test::loadModelSpecFile(shape);
        ASSERT_TRUE(spec.ok()) << spec.error().message;
        expectRoundTrip(withSmallTokenizer(*spec));
    }
}

TEST_F(ModelFilesOnDisk, EveryCardRoundTripsThroughTheReader) {
    for (const auto& card : builtinModelCards()) {
        expectRoundTrip(withSmallTokenizer(card));
    }
}

TEST_F(ModelFilesOnDisk, FullVocabularyRoundTrip) {
    const auto spec = test::loadShape("qwen35moe");
    ASSERT_TRUE(spec.ok());
    expectRoundTrip(*spec);
}

TEST_F(ModelFilesOnDisk, RetypedWeightsRoundTrip) {
    const auto llama = test::loadShape("llama");
    ASSERT_TRUE(llama.ok());
    ModelFileOptions options;
    options.weightType = GgmlType::Q8_0;
    expectRoundTrip(*llama, options);
}

TEST_F(ModelFilesOnDisk, TokenizerHasByteTokensAndSpecialIds) {
    const auto spec = test::loadShape("qwen2");
    ASSERT_TRUE(spec.ok());
    const auto file = test::ggufFileForSpec(*spec);
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(file->getString("tokenizer.ggml.model"), "llama");
    const auto& tokens = *std::get<std::shared_ptr<GgufArray>>(file->find("tokenizer.ggml.tokens")->data);
    ASSERT_EQ(tokens.size(), spec->vocabularySize);
    EXPECT_EQ(tokens.stringAt(1), "<s>");
    // llama-vocab.cpp looks the newline up as the byte token <0x0A>.
    EXPECT_EQ(tokens.stringAt(3 + 10), "<0x0A>");
    std::set<std::string> unique;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        unique.insert(std::string(tokens.stringAt(i)));
    }
    EXPECT_EQ(unique.size(), tokens.size());
    EXPECT_EQ(file->arrayLength("tokenizer.ggml.scores"), spec->vocabularySize);
    EXPECT_EQ(file->arrayLength("tokenizer.ggml.token_type"), spec->vocabularySize);
    EXPECT_EQ(file->getUint("tokenizer.ggml.eos_token_id"), 2u);

    ModelSpec tooSmall = *spec;
    tooSmall.vocabularySize = 200;
    const auto refused = test::ggufFileForSpec(tooSmall);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "test.bad-vocabulary");
}

TEST_F(ModelFilesOnDisk, SparseFileTakesNoDataBlocks) {
    const auto spec = test::loadShape("llama");
    ASSERT_TRUE(spec.ok());
    const std::string file = path("sparse.gguf");
    const auto written = test::writeSpecAsGguf(*spec, file);
    ASSERT_TRUE(written.ok());
    EXPECT_GT(std::filesystem::file_size(file), spec->file.tensorBytes());
#ifdef _WIN32
    GTEST_SKIP() << "Windows has no st_blocks to count allocated blocks; the file's size is checked above";
#else
    struct stat info {};
    ASSERT_EQ(::stat(file.c_str(), &info), 0);
    // The 2.3 GiB data region is a hole: only the header (tokenizer) takes blocks.
    EXPECT_LT(static_cast<std::uint64_t>(info.st_blocks) * 512u, 64u * kMiB);
#endif
}

std::vector<char> readAll(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(ModelFilesOnDisk, TinyModelHasRealDeterministicWeights) {
    const auto spec = test::tinyModelSpec();
    EXPECT_EQ(spec.file.getString("general.architecture"), "llama");
    expectRoundTrip(spec);
    const auto first = test::writeTinyModel(path("tiny-a.gguf"));
    const auto second = test::writeTinyModel(path("tiny-b.gguf"));
    ASSERT_TRUE(first.ok() && second.ok());
    const auto a = readAll(path("tiny-a.gguf"));
    EXPECT_EQ(a, readAll(path("tiny-b.gguf"))); // fixed seed
    const auto header = readGgufModel(path("tiny-a.gguf"));
    ASSERT_TRUE(header.ok());
    const auto* query = header->findTensor("blk.0.attn_q.weight");
    ASSERT_NE(query, nullptr);
    const auto start = static_cast<std::ptrdiff_t>(header->dataOffset + query->dataOffset);
    ASSERT_LE(start + static_cast<std::ptrdiff_t>(query->bytes), static_cast<std::ptrdiff_t>(a.size()));
    float value = 0.0f;
    bool anyNonZero = false;
    for (std::ptrdiff_t at = start; at < start + static_cast<std::ptrdiff_t>(query->bytes); at += 4) {
        std::memcpy(&value, a.data() + at, 4);
        EXPECT_LE(std::fabs(value), 1.0f / 8.0f); // +-1/sqrt(64)
        anyNonZero = anyNonZero || value != 0.0f;
    }
    EXPECT_TRUE(anyNonZero);
    const auto* norm = header->findTensor("output_norm.weight");
    std::memcpy(&value, a.data() + header->dataOffset + norm->dataOffset, 4);
    EXPECT_EQ(value, 1.0f);
}

} // namespace
} // namespace llamafit

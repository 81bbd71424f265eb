#include "tests/support/modelfiles.h"

#include "core/common/units.h"
#include "tests/support/ggufwriter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifndef LLAMAFIT_SHAPES_DIR
#error "LLAMAFIT_SHAPES_DIR must name tests/data/shapes (set in tests/CMakeLists.txt)"
#endif

namespace llamafit::test {
namespace {

// llama.cpp src/llama-quant.cpp tensor_allows_quantization: which weights a quantizer retypes.
bool quantizerWouldRetype(const GgufTensorInfo& tensor) {
    const std::string& name = tensor.name;
    if (tensor.dimensionCount < 2 || !name.ends_with("weight")) {
        return false;
    }
    static constexpr std::string_view kKept[] = {"_norm.weight",
                                                 "ffn_gate_inp.weight",
                                                 "ffn_gate_tid2eid.weight",
                                                 "altup",
                                                 "laurel",
                                                 "per_layer_model_proj",
                                                 "ssm_conv1d",
                                                 "shortconv.conv.weight",
                                                 "indexer.k_proj.weight",
                                                 "indexer.q_proj.weight",
                                                 "time_mix_first.weight",
                                                 "time_mix_w0.weight",
                                                 "time_mix_w1.weight",
                                                 "time_mix_w2.weight",
                                                 "time_mix_v0.weight",
                                                 "time_mix_v1.weight",
                                                 "time_mix_v2.weight",
                                                 "time_mix_a0.weight",
                                                 "time_mix_a1.weight",
                                                 "time_mix_a2.weight",
                                                 "time_mix_g1.weight",
                                                 "time_mix_g2.weight",
                                                 "time_mix_decay_w1.weight",
                                                 "time_mix_decay_w2.weight",
                                                 "time_mix_lerp_fused.weight",
                                                 "attn_rel_b.weight",
                                                 "position_embd",
                                                 "token_types"};
    return std::none_of(std::begin(kKept), std::end(kKept),
                        [&](std::string_view kept) { return name.find(kept) != std::string::npos; });
}

// llama.cpp src/llama-vocab.cpp (load): an SPM ("llama") vocabulary needs tokens, and reads
// scores and token types when present; the newline token is looked up as the byte token
// <0x0A>; bos/eos/unk default to 1/2/0. Token texts must be unique (token_to_id map).
void addSpmTokenizer(GgufFile& file, std::uint32_t vocabularySize) {
    // llama.cpp include/llama.h enum llama_token_type.
    constexpr std::int64_t kNormal = 1, kUnknown = 2, kControl = 3, kByte = 6;
    GgufArray tokens(GgufValueType::String);
    GgufArray scores(GgufValueType::Float32);
    GgufArray types(GgufValueType::Int32);
    tokens.reserve(vocabularySize, std::size_t{8} * vocabularySize);
    scores.reserve(vocabularySize);
    types.reserve(vocabularySize);
    auto add = [&](std::string_view text, std::int64_t type, double score) {
        tokens.appendString(text);
        types.appendInt(type);
        scores.appendFloat(score);
    };
    add("<unk>", kUnknown, 0.0);
    add("<s>", kControl, 0.0);
    add("</s>", kControl, 0.0);
    static const char* kHex = "0123456789ABCDEF";
    for (int byte = 0; byte < 256; ++byte) {
        const char text[] = {'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'};
        add(std::string_view(text, sizeof text), kByte, 0.0);
    }
    std::string text;
    for (std::uint32_t id = 259; id < vocabularySize; ++id) {
        text = 'w';
        text += std::to_string(id);
        add(text, kNormal, -static_cast<double>(id));
    }
    auto set = [&](std::string key, GgufValue value) {
        file.metadata.emplace_back(std::move(key), std::move(value));
    };
    set("tokenizer.ggml.model", GgufValue::fromString("llama"));
    set("tokenizer.ggml.tokens", GgufValue::fromArray(std::move(tokens)));
    set("tokenizer.ggml.scores", GgufValue::fromArray(std::move(scores)));
    set("tokenizer.ggml.token_type", GgufValue::fromArray(std::move(types)));
    set("tokenizer.ggml.bos_token_id", GgufValue::fromUint(1, GgufValueType::Uint32));
    set("tokenizer.ggml.eos_token_id", GgufValue::fromUint(2, GgufValueType::Uint32));
    set("tokenizer.ggml.unknown_token_id", GgufValue::fromUint(0, GgufValueType::Uint32));
    set("tokenizer.ggml.add_bos_token", GgufValue::fromBool(true));
}

// splitmix64: a tiny, fully specified generator, so files are identical on every platform.
std::uint64_t splitMix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::uint16_t toHalf(float value) {
    // Round-to-nearest float -> IEEE half for the small magnitudes used here (no NaN/Inf input).
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
    const std::uint32_t mantissa = bits & 0x7FFFFFu;
    if (exponent <= 0) {
        return static_cast<std::uint16_t>(sign); // flush tiny values to zero
    }
    if (exponent >= 31) {
        return static_cast<std::uint16_t>(sign | 0x7BFFu); // clamp to the largest finite half
    }
    std::uint32_t half = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
    if ((mantissa & 0x1FFFu) > 0x1000u) {
        ++half;
    }
    return static_cast<std::uint16_t>(half);
}

// Norm weights are 1 (an identity scale); other tensors uniform in +-1/sqrt(ne0).
TensorDataFiller randomWeights(std::uint64_t seed) {
    return [seed](const GgufTensorInfo& tensor, std::span<std::uint8_t> data) {
        const bool unit = tensor.name.find("norm") != std::string::npos;
        const float scale = 1.0f / std::sqrt(static_cast<float>(tensor.shape[0]));
        std::uint64_t state = seed;
        for (unsigned char c : tensor.name) { // FNV-1a of the name: each tensor its own stream
            state = (state ^ c) * 0x100000001B3ULL;
        }
        auto next = [&]() {
            const double unitInterval = static_cast<double>(splitMix(state) >> 11) * 0x1.0p-53;
            return unit ? 1.0f : static_cast<float>((unitInterval * 2.0 - 1.0) * scale);
        };
        if (tensor.type == GgmlType::F32) {
            for (std::size_t at = 0; at + 4 <= data.size(); at += 4) {
                const float value = next();
                std::memcpy(data.data() + at, &value, 4);
            }
        } else if (tensor.type == GgmlType::F16) {
            for (std::size_t at = 0; at + 2 <= data.size(); at += 2) {
                const std::uint16_t value = toHalf(next());
                std::memcpy(data.data() + at, &value, 2);
            }
        } // other types stay zero: an all-zero block is a valid (zero) quantized block
    };
}

// The tiny llama, in the spec format (dimensions chosen to be the smallest llama.cpp's llama
// graph accepts with GQA: head_dim 16, 2 query heads per KV head).
constexpr std::string_view kTinyModelJson = R"json({
  "id": "tiny-llama-f32", "name": "Tiny llama (random weights)",
  "source": "made up for tests: smallest llama with GQA, real weights", "vocabulary_size": 288,
  "metadata": [
    {"key": "general.architecture", "type": "string", "value": "llama"},
    {"key": "general.name", "type": "string", "value": "tiny-llama"},
    {"key": "general.file_type", "type": "u32", "value": 0},
    {"key": "llama.context_length", "type": "u32", "value": 2048},
    {"key": "llama.embedding_length", "type": "u32", "value": 64},
    {"key": "llama.block_count", "type": "u32", "value": 2},
    {"key": "llama.feed_forward_length", "type": "u32", "value": 128},
    {"key": "llama.attention.head_count", "type": "u32", "value": 4},
    {"key": "llama.attention.head_count_kv", "type": "u32", "value": 2},
    {"key": "llama.rope.dimension_count", "type": "u32", "value": 16},
    {"key": "llama.rope.freq_base", "type": "f32", "value": 10000.0},
    {"key": "llama.attention.layer_norm_rms_epsilon", "type": "f32", "value": 1e-5},
    {"key": "llama.vocab_size", "type": "u32", "value": 288}
  ],
  "tensors": [
    {"name": "token_embd.weight", "type": "f32", "shape": [64, 288]},
    {"name": "blk.{i}.attn_norm.weight", "type": "f32", "shape": [64]},
    {"name": "blk.{i}.attn_q.weight", "type": "f32", "shape": [64, 64]},
    {"name": "blk.{i}.attn_k.weight", "type": "f32", "shape": [64, 32]},
    {"name": "blk.{i}.attn_v.weight", "type": "f32", "shape": [64, 32]},
    {"name": "blk.{i}.attn_output.weight", "type": "f32", "shape": [64, 64]},
    {"name": "blk.{i}.ffn_norm.weight", "type": "f32", "shape": [64]},
    {"name": "blk.{i}.ffn_gate.weight", "type": "f32", "shape": [64, 128]},
    {"name": "blk.{i}.ffn_up.weight", "type": "f32", "shape": [64, 128]},
    {"name": "blk.{i}.ffn_down.weight", "type": "f32", "shape": [128, 64]},
    {"name": "output_norm.weight", "type": "f32", "shape": [64]},
    {"name": "output.weight", "type": "f32", "shape": [64, 288]}
  ]
})json";

} // namespace

std::string shapesDirectory() {
    return LLAMAFIT_SHAPES_DIR;
}

std::vector<std::string> shapeFiles() {
    std::vector<std::string> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(shapesDirectory(), error)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") {
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

Result<ModelSpec> loadModelSpecFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return makeError("test.read-failed", "cannot open " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    auto spec = parseModelSpec(text.str());
    if (!spec) {
        return makeError(spec.error().code, path + ": " + spec.error().message);
    }
    return spec;
}

Result<ModelSpec> loadShape(std::string_view name) {
    return loadModelSpecFile(shapesDirectory() + "/" + std::string(name) + ".json");
}

void layOutOffsets(GgufFile& file) {
    std::uint64_t offset = 0;
    for (auto& tensor : file.tensors) {
        tensor.dataOffset = offset;
        offset = padTo(offset + tensor.bytes, file.alignment);
    }
}

GgufFile retypeWeights(const GgufFile& file, GgmlType weightType) {
    GgufFile out = file;
    for (auto& tensor : out.tensors) {
        if (quantizerWouldRetype(tensor) && ggmlRowDivisible(weightType, tensor.shape[0])) {
            tensor.type = weightType;
            tensor.bytes = ggmlRowBytes(weightType, tensor.shape[0]) * tensor.shape[1] * tensor.shape[2] *
                           tensor.shape[3];
        }
    }
    layOutOffsets(out);
    out.rebuildIndex();
    return out;
}

Result<GgufFile> ggufFileForSpec(const ModelSpec& spec, const ModelFileOptions& options) {
    if (spec.vocabularySize < 259) {
        return makeError("test.bad-vocabulary", spec.id + ": vocabulary_size " +
                                                    std::to_string(spec.vocabularySize) +
                                                    " is below the 259 tokens of an SPM byte vocabulary");
    }
    GgufFile file = options.weightType ? retypeWeights(spec.file, *options.weightType) : spec.file;
    addSpmTokenizer(file, spec.vocabularySize);
    file.rebuildIndex();
    return file;
}

Result<GgufFile> writeSpecAsGguf(const ModelSpec& spec, const std::string& path,
                                 const ModelFileOptions& options) {
    auto file = ggufFileForSpec(spec, options);
    if (!file) {
        return file;
    }
    GgufWriteOptions writeOptions;
    writeOptions.version = options.version;
    if (options.realWeights) {
        writeOptions.fill = randomWeights(options.seed);
    }
    if (const std::string failure = writeGguf(path, *file, writeOptions); !failure.empty()) {
        return makeError("test.write-failed", failure);
    }
    return file;
}

ModelSpec tinyModelSpec() {
    // The literal above is checked by the unit tests; value() fails loudly if it ever breaks.
    return parseModelSpec(kTinyModelJson).value();
}

Result<GgufFile> writeTinyModel(const std::string& path) {
    ModelFileOptions options;
    options.realWeights = true;
    return writeSpecAsGguf(tinyModelSpec(), path, options);
}

} // namespace llamafit::test

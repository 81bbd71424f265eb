// checkLoadable: the loader's refusals, each citing where llama.cpp makes it.
#include "core/model/loaderchecks.h"

#include "core/model/modelinterpreter.h"
#include "core/model/tensorroles.h"
#include "core/model/tensorshapechecks.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {
namespace {

std::string typeName(GgufValueType type) {
    switch (type) {
    case GgufValueType::Uint8:
        return "u8";
    case GgufValueType::Int8:
        return "i8";
    case GgufValueType::Uint16:
        return "u16";
    case GgufValueType::Int16:
        return "i16";
    case GgufValueType::Uint32:
        return "u32";
    case GgufValueType::Int32:
        return "i32";
    case GgufValueType::Float32:
        return "f32";
    case GgufValueType::Bool:
        return "bool";
    case GgufValueType::String:
        return "str";
    case GgufValueType::Array:
        return "arr";
    case GgufValueType::Uint64:
        return "u64";
    case GgufValueType::Int64:
        return "i64";
    case GgufValueType::Float64:
        return "f64";
    }
    return "unknown";
}

enum class KeyForm {
    Uint32,        // ml.get_key(..., uint32_t): exactly u32
    Uint32OrArray, // ml.get_key_or_arr: u32, or an array of u32 / i32 (one per layer)
};

// "<arch>.<suffix>" keys the loader reads as u32 (src/llama-model.cpp load_hparams).
constexpr std::array<std::pair<std::string_view, KeyForm>, 12> kTypedKeys{{
    {"context_length", KeyForm::Uint32},
    {"embedding_length", KeyForm::Uint32},
    {"block_count", KeyForm::Uint32},
    {"feed_forward_length", KeyForm::Uint32OrArray},
    {"attention.head_count", KeyForm::Uint32OrArray},
    {"attention.head_count_kv", KeyForm::Uint32OrArray},
    {"attention.key_length", KeyForm::Uint32},
    {"attention.value_length", KeyForm::Uint32},
    {"rope.dimension_count", KeyForm::Uint32},
    {"expert_count", KeyForm::Uint32},
    {"expert_used_count", KeyForm::Uint32},
    {"vocab_size", KeyForm::Uint32},
}};

Result<bool> checkKeyTypes(const GgufFile& file) {
    const std::string architecture = file.getString("general.architecture").value_or(std::string());
    for (const auto& [suffix, form] : kTypedKeys) {
        const std::string key = architecture + "." + std::string(suffix);
        const GgufValue* value = file.find(key);
        if (value == nullptr || value->type == GgufValueType::Uint32) {
            continue;
        }
        if (form == KeyForm::Uint32OrArray && value->type == GgufValueType::Array) {
            const GgufValueType element = value->array()->elementType();
            if (element == GgufValueType::Uint32 || element == GgufValueType::Int32) {
                continue;
            }
            return makeError("model.wrong-key-type",
                             key + " is an array of " + typeName(element) +
                                 "; llama.cpp reads it as u32 or an array of u32/i32 and refuses the model");
        }
        return makeError("model.wrong-key-type", "key " + key + " has wrong type " + typeName(value->type) +
                                                     " but expected type u32 (llama.cpp refuses the model)");
    }
    return true;
}

Result<bool> checkVocabulary(const GgufFile& file, const ModelInfo& model) {
    const std::optional<std::string> tokenizer = file.getString("tokenizer.ggml.model");
    if (!tokenizer) {
        return makeError("model.missing-vocabulary",
                         "key not found in model: tokenizer.ggml.model (llama.cpp needs the tokenizer)");
    }
    if (*tokenizer == "no_vocab" || *tokenizer == "none") {
        return true; // llama.cpp's LLAMA_VOCAB_TYPE_NONE: an embedding-only model, no token list
    }
    const std::optional<std::size_t> tokens = file.arrayLength("tokenizer.ggml.tokens");
    if (!tokens || *tokens == 0) {
        return makeError("model.missing-vocabulary", "cannot find tokenizer vocab in model file "
                                                     "(tokenizer.ggml.tokens is missing or empty)");
    }
    const GgufTensorInfo* embedding = file.findTensor("token_embd.weight");
    if (embedding != nullptr && embedding->dimensionCount >= 2 &&
        (embedding->shape[0] != model.embeddingLength || embedding->shape[1] != *tokens)) {
        return makeError("model.wrong-tensor-shape",
                         "tensor 'token_embd.weight' has wrong shape; expected " +
                             std::to_string(model.embeddingLength) + " x " + std::to_string(*tokens) +
                             " (n_embd x the tokenizer's " + std::to_string(*tokens) + " tokens), got " +
                             std::to_string(embedding->shape[0]) + " x " +
                             std::to_string(embedding->shape[1]));
    }
    return true;
}

Result<bool> checkBlocks(const GgufFile& file, std::uint32_t blockCount) {
    std::vector<bool> blockHasTensor(blockCount, false);
    for (const GgufTensorInfo& tensor : file.tensors) {
        const int block = blockIndex(tensor.name);
        if (block < 0) {
            continue;
        }
        if (static_cast<std::uint32_t>(block) >= blockCount) {
            return makeError("model.wrong-tensor-count",
                             "tensor '" + tensor.name + "' belongs to block " + std::to_string(block) +
                                 " but block_count is " + std::to_string(blockCount) +
                                 ": llama.cpp stops with \"wrong number of tensors\"");
        }
        blockHasTensor[static_cast<std::size_t>(block)] = true;
    }
    const auto missing = std::find(blockHasTensor.begin(), blockHasTensor.end(), false);
    if (missing != blockHasTensor.end()) {
        const auto block = missing - blockHasTensor.begin();
        return makeError("model.missing-tensor", "block_count is " + std::to_string(blockCount) +
                                                     " but block " + std::to_string(block) +
                                                     " has no tensors (llama.cpp: tensor 'blk." +
                                                     std::to_string(block) + ".…' not found)");
    }
    return true;
}

Result<bool> checkLimits(const GgufFile& file, const ModelInfo& model) {
    if (model.expertCount > kLlamaMaxExperts) {
        return makeError("model.too-many-experts", "expert_count is " + std::to_string(model.expertCount) +
                                                       "; llama.cpp b11669 allows at most " +
                                                       std::to_string(kLlamaMaxExperts) +
                                                       " (LLAMA_MAX_EXPERTS) and aborts");
    }
    const std::string key = model.architecture + ".rope.dimension_count";
    const std::optional<std::uint64_t> ropeDimensions = file.getUint(key);
    // The head size the interpreter derived (key_length, else n_embd / n_head) of the first
    // attention layer.
    const auto attention = std::find_if(model.layers.begin(), model.layers.end(),
                                        [](const LayerInfo& layer) { return layer.keyHeadDim > 0; });
    const std::uint64_t headSize = attention == model.layers.end() ? 0 : attention->keyHeadDim;
    if (!ropeDimensions || headSize == 0) {
        return true;
    }
    // src/llama-model.cpp load_hparams: these architectures rotate the whole head.
    constexpr std::array<std::string_view, 4> kWholeHeadRope{"llama", "deci", "falcon", "llama-embed"};
    const bool wholeHead =
        std::find(kWholeHeadRope.begin(), kWholeHeadRope.end(), model.architecture) != kWholeHeadRope.end();
    if ((wholeHead && *ropeDimensions != headSize) || *ropeDimensions > headSize) {
        return makeError("model.bad-rope-dimensions", "invalid n_rot: " + key + " is " +
                                                          std::to_string(*ropeDimensions) +
                                                          ", the head size is " + std::to_string(headSize));
    }
    return true;
}

// Everything but the key types: what needs the interpreted model.
// Hyper-parameters an architecture's load_hparams requires only in some files. DeepSeek-V2
// (src/models/deepseek2.cpp): only a "Lite" -- 26 or 27 layers, or 48 with a 128256-token vocabulary
// -- may leave out q_lora_rank; every other file must have it (and the low-rank query it sizes), so
// a Lite cut to other layer counts does not load.
Result<bool> checkConditionalKeys(const GgufFile& file, const ModelInfo& model) {
    if (model.architecture != "deepseek2") {
        return true;
    }
    const std::uint64_t layers = file.getUint("deepseek2.block_count").value_or(0);
    const std::size_t vocabulary = file.arrayLength("tokenizer.ggml.tokens").value_or(0);
    const bool lite = layers == 26 || layers == 27 || (layers == 48 && vocabulary == 128256);
    if (!lite && file.find("deepseek2.attention.q_lora_rank") == nullptr) {
        return makeError(
            "model.missing-key",
            "key not found in model: deepseek2.attention.q_lora_rank (llama.cpp reads it for "
            "every DeepSeek-V2 but the Lite ones: 26 or 27 layers, or 48 with 128256 tokens; this "
            "file has " +
                std::to_string(layers) + " layers)");
    }
    return true;
}

Result<bool> checkInterpreted(const GgufFile& file, const ModelInfo& model) {
    const auto blockCount = file.getUint(model.architecture + ".block_count");
    for (const Result<bool>& check :
         {checkConditionalKeys(file, model), checkVocabulary(file, model),
          checkBlocks(file, static_cast<std::uint32_t>(blockCount.value_or(0))), checkLimits(file, model),
          checkTensorShapes(file, model, file.arrayLength("tokenizer.ggml.tokens").value_or(0))}) {
        if (!check) {
            return check.error();
        }
    }
    return true;
}

} // namespace

Result<bool> checkLoadable(const GgufFile& file, const ModelInfo& model) {
    if (Result<bool> typed = checkKeyTypes(file); !typed) {
        return typed;
    }
    return checkInterpreted(file, model);
}

Result<ModelInfo> interpretLoadableModel(const GgufFile& file) {
    // The key types first: the interpreter reads a key of another type as absent and would name
    // it missing, where llama.cpp names its type.
    if (Result<bool> typed = checkKeyTypes(file); !typed) {
        return typed.error();
    }
    Result<ModelInfo> model = interpretModel(file);
    if (!model) {
        return model;
    }
    if (Result<bool> loadable = checkInterpreted(file, *model); !loadable) {
        return loadable.error();
    }
    return model;
}

} // namespace llamafit

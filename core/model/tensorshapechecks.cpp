// checkTensorShapes: the tensor table against the metadata, as llama.cpp's load_tensors checks it
// (src/llama-model.cpp create_tensor calls; src/llama-model-loader.cpp check_tensor_dims).
#include "core/model/tensorshapechecks.h"

#include "core/model/tensorroles.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {
namespace {

// Architectures whose load_tensors case creates attn_k / attn_v / attn_output, the dense FFN and
// the layer norms with the standard shapes (src/llama-model.cpp). Checked against real dimensions:
// llama, qwen2, qwen3, qwen3moe, gemma2, gemma3, gpt-oss, cohere2, qwen3next, qwen35moe, jamba,
// granitehybrid, lfm2, falcon-h1 and nemotron_h (tests/data/shapes, the built-in cards, the public
// GPU logs). The others share one of those families' load_tensors case: granite and granitemoe
// llama's, the VL variants their text model's, qwen35 and qwen2moe their siblings', lfm2moe and
// nemotron_h_moe their dense twins'.
constexpr std::array<std::string_view, 24> kStandardProjectionArchitectures{
    "llama",         "granite", "granitemoe", "qwen2",      "qwen2vl",    "qwen2moe",
    "qwen3",         "qwen3vl", "qwen3moe",   "qwen3vlmoe", "gemma2",     "gemma3",
    "gpt-oss",       "cohere2", "qwen3next",  "qwen35",     "qwen35moe",  "jamba",
    "granitehybrid", "lfm2",    "lfm2moe",    "falcon-h1",  "nemotron_h", "nemotron_h_moe"};

std::string describeShape(const std::vector<std::uint64_t>& shape) {
    std::string text;
    for (std::uint64_t dimension : shape) {
        text += (text.empty() ? "" : ", ") + std::to_string(dimension);
    }
    return "{" + text + "}";
}

std::vector<std::uint64_t> shapeOf(const GgufTensorInfo& tensor) {
    return {tensor.shape.begin(), tensor.shape.begin() + tensor.dimensionCount};
}

Error wrongShape(const GgufTensorInfo& tensor, const std::vector<std::uint64_t>& expected,
                 std::string_view why) {
    return makeError("model.wrong-tensor-shape", "tensor '" + tensor.name + "' has wrong shape; expected " +
                                                     describeShape(expected) + " (" + std::string(why) +
                                                     "), got " + describeShape(shapeOf(tensor)) +
                                                     " (llama.cpp refuses the model)");
}

// A tensor that is present must have exactly `expected` (trailing dimensions of 1 are ignored,
// as ggml stores them).
Result<bool> expectShape(const GgufFile& file, const std::string& name,
                         const std::vector<std::uint64_t>& expected, std::string_view why) {
    const GgufTensorInfo* tensor = file.findTensor(name);
    if (tensor == nullptr) {
        return true;
    }
    for (std::size_t d = 0; d < tensor->shape.size(); ++d) {
        const std::uint64_t want = d < expected.size() ? expected[d] : 1;
        if (tensor->shape[d] != want) {
            return wrongShape(*tensor, expected, why);
        }
    }
    return true;
}

Error missingTensor(const std::string& name, std::string_view why) {
    return makeError("model.missing-tensor", "tensor '" + name + "' not found (" + std::string(why) +
                                                 "; llama.cpp refuses the model)");
}

std::string blockTensor(std::size_t layer, std::string_view suffix) {
    return "blk." + std::to_string(layer) + "." + std::string(suffix);
}

Result<bool> checkAttention(const GgufFile& file, const ModelInfo& model, std::size_t l) {
    const LayerInfo& layer = model.layers[l];
    if (layer.attention == AttentionKind::None || layer.nextn || model.mla || layer.keyHeadDim == 0) {
        return true;
    }
    const std::uint64_t embd = model.embeddingLength;
    const std::uint64_t keyWidth = std::uint64_t{layer.headCountKv} * layer.keyHeadDim;
    if (layer.hasKv) {
        if (file.findTensor(blockTensor(l, "attn_k.weight")) == nullptr &&
            file.findTensor(blockTensor(l, "attn_qkv.weight")) == nullptr) {
            return missingTensor(blockTensor(l, "attn_k.weight"), "layer " + std::to_string(l) + " attends");
        }
        if (file.findTensor(blockTensor(l, "attn_output.weight")) == nullptr) {
            return missingTensor(blockTensor(l, "attn_output.weight"),
                                 "layer " + std::to_string(l) + " attends");
        }
    }
    if (layer.headCountKv > 0) {
        if (auto k = expectShape(file, blockTensor(l, "attn_k.weight"), {embd, keyWidth},
                                 "n_embd, head_count_kv x key_length");
            !k) {
            return k;
        }
    }
    // Where K and V heads differ, families disagree on which one sizes V and the output; only the
    // common case is checked.
    if (layer.valueHeadDim != layer.keyHeadDim) {
        return true;
    }
    if (layer.headCountKv > 0) {
        if (auto v = expectShape(file, blockTensor(l, "attn_v.weight"), {embd, keyWidth},
                                 "n_embd, head_count_kv x value_length");
            !v) {
            return v;
        }
    }
    return expectShape(file, blockTensor(l, "attn_output.weight"),
                       {std::uint64_t{layer.headCount} * layer.keyHeadDim, embd},
                       "head_count x key_length, n_embd");
}

Result<bool> checkDenseFeedForward(const GgufFile& file, const ModelInfo& model, std::size_t l) {
    const std::uint64_t ff = model.layers[l].feedForwardLength;
    const std::uint64_t embd = model.embeddingLength;
    if (ff == 0 || model.layers[l].nextn) {
        return true;
    }
    for (std::string_view suffix : {"ffn_gate.weight", "ffn_up.weight"}) {
        if (auto in = expectShape(file, blockTensor(l, suffix), {embd, ff}, "n_embd, feed_forward_length");
            !in) {
            return in;
        }
    }
    return expectShape(file, blockTensor(l, "ffn_down.weight"), {ff, embd}, "feed_forward_length, n_embd");
}

Result<bool> checkLayerNorms(const GgufFile& file, const ModelInfo& model, std::size_t l) {
    for (std::string_view suffix : {"attn_norm.weight", "ffn_norm.weight"}) {
        if (auto norm = expectShape(file, blockTensor(l, suffix), {model.embeddingLength}, "n_embd"); !norm) {
            return norm;
        }
    }
    return true;
}

// create_tensor gives every routed-expert tensor n_expert as its last dimension: the third of a
// weight {in, out, n_expert}, the second of a bias {out, n_expert} (gpt-oss).
Result<bool> checkExperts(const GgufFile& file, const ModelInfo& model) {
    for (const GgufTensorInfo& tensor : file.tensors) {
        if (!isRoutedExpertTensor(tensor.name)) {
            continue;
        }
        const bool weight = tensor.name.ends_with(".weight");
        const bool bias = tensor.name.ends_with(".bias");
        const std::size_t expertDimension = weight ? 2 : 1;
        if ((!weight && !bias) || tensor.shape[expertDimension] == model.expertCount) {
            continue;
        }
        std::vector<std::uint64_t> expected = shapeOf(tensor);
        expected.resize(expertDimension + 1, 1);
        expected[expertDimension] = model.expertCount;
        return wrongShape(tensor, expected, "its last dimension is expert_count");
    }
    return true;
}

} // namespace

Result<bool> checkTensorShapes(const GgufFile& file, const ModelInfo& model, std::uint64_t vocabularySize) {
    if (!model.knownArchitecture) {
        return true;
    }
    if (file.findTensor("token_embd.weight") == nullptr) {
        return missingTensor("token_embd.weight", "every architecture embeds its input tokens");
    }
    const std::uint64_t embd = model.embeddingLength;
    if (vocabularySize > 0) {
        if (auto output =
                expectShape(file, "output.weight", {embd, vocabularySize}, "n_embd, the tokenizer's tokens");
            !output) {
            return output;
        }
    }
    if (auto norm = expectShape(file, "output_norm.weight", {embd}, "n_embd"); !norm) {
        return norm;
    }
    if (model.isMoe()) {
        if (auto experts = checkExperts(file, model); !experts) {
            return experts;
        }
    }
    const bool standard =
        std::find(kStandardProjectionArchitectures.begin(), kStandardProjectionArchitectures.end(),
                  model.architecture) != kStandardProjectionArchitectures.end();
    if (!standard) {
        return true;
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l) {
        for (auto check : {checkAttention, checkDenseFeedForward, checkLayerNorms}) {
            if (auto result = check(file, model, l); !result) {
                return result;
            }
        }
    }
    return true;
}

} // namespace llamafit

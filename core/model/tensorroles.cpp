// Tensor name -> role. llama.cpp src/llama-arch.cpp LLM_TENSOR_INFOS marks token_embd,
// position_embd, token_types and per_layer_token_embd as LLM_TENSOR_LAYER_INPUT (always on
// the CPU, llama-model.cpp "very little benefit to offloading the input layer"), and output,
// output_norm, cls*, dense_2/3, altup_proj, ... as LLM_TENSOR_LAYER_OUTPUT.
#include "core/model/tensorroles.h"

#include <array>
#include <charconv>

namespace llamafit {
namespace {

constexpr std::array<std::string_view, 4> kInputBases = {"token_embd", "position_embd", "token_types",
                                                         "per_layer_token_embd"};

constexpr std::array<std::string_view, 12> kOutputBases = {
    "output",     "output_norm",       "cls",
    "cls.output", "cls.norm",          "dense_2",
    "dense_3",    "dec.output_norm",   "enc.output_norm",
    "altup_proj", "altup_unembd_proj", "output_res_score"};

// common/common.h: llm_ffn_exps_regex "\\.ffn_(up|down|gate|gate_up)_(ch|)exps", searched anywhere.
constexpr std::array<std::string_view, 8> kExpertPieces = {
    ".ffn_up_exps",   ".ffn_down_exps",   ".ffn_gate_exps",   ".ffn_gate_up_exps",
    ".ffn_up_chexps", ".ffn_down_chexps", ".ffn_gate_chexps", ".ffn_gate_up_chexps"};

template <std::size_t N> bool contains(const std::array<std::string_view, N>& list, std::string_view value) {
    for (const auto item : list) {
        if (item == value) {
            return true;
        }
    }
    return false;
}

// "token_embd.weight" -> "token_embd"; names without a known suffix stay whole.
std::string_view baseName(std::string_view name) {
    for (const std::string_view suffix : {".weight", ".bias", ".scale"}) {
        if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
            return name.substr(0, name.size() - suffix.size());
        }
    }
    return name;
}

} // namespace

bool isPerLayerCopiedWeight(std::string_view name) {
    return name == kRopeFactorsNames[0] || name == kRopeFactorsNames[1] ||
           name == "rope_factors_short.weight";
}

bool isRoutedExpertTensor(std::string_view name) {
    for (const auto piece : kExpertPieces) {
        if (name.find(piece) != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

TensorSummary summarizeTensor(const GgufTensorInfo& tensor, std::string_view architecture) {
    TensorSummary out;
    out.name = tensor.name;
    out.type = tensor.type;
    out.bytes = tensor.bytes;
    out.rowValues = tensor.shape[0];
    out.expert = isRoutedExpertTensor(tensor.name);

    out.layer = blockIndex(tensor.name);
    if (out.layer >= 0) {
        out.role = TensorRole::Layer;
        return out;
    }
    const std::string_view base = baseName(tensor.name);
    if (isPerLayerCopiedWeight(tensor.name)) {
        // src/models/<arch>.cpp creates them in the layer loop, in layer 0 (the file's tensor)
        // and TENSOR_DUPLICATED in every later layer's buffer type (llama-model-loader.cpp:
        // one copy per buffer type): the file's tensor is placed as a weight of block 0.
        out.role = TensorRole::Layer;
        out.layer = 0;
        return out;
    }
    if (contains(kInputBases, base)) {
        out.role = TensorRole::TokenEmbedding;
    } else if (contains(kOutputBases, base)) {
        out.role = TensorRole::Output;
    } else if (base == "token_embd_norm" && (architecture == "lfm2" || architecture == "lfm2moe")) {
        // llama-arch.cpp LLM_TENSOR_OUTPUT_NORM_LFM2 "token_embd_norm": "fix for wrong tensor name".
        out.role = TensorRole::Output;
    } else if (base == "token_embd_norm" && architecture.starts_with("rwkv")) {
        // RWKV's ln0 ("Block 0, LN0" in src/llama-model.cpp) is loaded with block 0. Measured on
        // lavapipe: rwkv6's 16 KiB pair is in Vulkan0's model buffer at -ngl all and in
        // CPU_Mapped when block 0 stays on the CPU.
        out.role = TensorRole::Layer;
        out.layer = 0;
    } else {
        out.role = TensorRole::Other;
    }
    return out;
}

std::vector<TensorSummary> summarizeTensors(const GgufFile& file, std::string_view architecture) {
    std::vector<TensorSummary> out;
    out.reserve(file.tensors.size());
    for (const auto& tensor : file.tensors) {
        out.push_back(summarizeTensor(tensor, architecture));
    }
    return out;
}

int blockIndex(std::string_view name) {
    constexpr std::string_view prefix = "blk.";
    if (name.substr(0, prefix.size()) != prefix) {
        return -1;
    }
    const std::string_view rest = name.substr(prefix.size());
    int index = -1;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
    if (ec != std::errc{} || end == rest.data() || end == rest.data() + rest.size() || *end != '.') {
        return -1;
    }
    return index;
}

} // namespace llamafit

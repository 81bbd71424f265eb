#pragma once
// WeightClass: everything weight placement (weightplacement.h) reads from a tensor except its
// name, which only -ot patterns need. Tensors of one class land in the same llama.cpp buffer
// whatever the settings, so a prepared model (sizingmodel.h) places a few dozen byte-summed
// groups instead of every tensor. Internal to core/sizing; model-only, no settings. Bytes.

#include "core/model/modelinfo.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llamafit {

struct WeightClass {
    TensorRole role = TensorRole::Other;
    int layer = -1;
    bool repacks = false; // cpuRepacks(tensor)
    bool experts = false; // matched by --cpu-moe's pattern
    // The smallest block b whose --n-cpu-moe pattern matches the name: -ncmoe N keeps the tensor
    // on the CPU iff expertsBlock < N.
    std::optional<std::uint32_t> expertsBlock;
    // A Mamba ssm_a: llama-model.cpp checks it against GGML_OP_SSM_SCAN, which some backends
    // only run for some state sizes (weightplacement.cpp).
    bool ssmScan = false;
    bool operator==(const WeightClass&) const = default;
};

WeightClass classifyWeight(const TensorSummary& tensor);

struct WeightGroup {
    WeightClass weightClass;
    std::uint64_t bytes = 0;              // summed over the group's tensors
    std::uint64_t largestTensorBytes = 0; // the op-offload copy is one tensor
    bool operator==(const WeightGroup&) const = default;
};

struct WeightGroups {
    std::vector<WeightGroup> groups;           // in the order of each group's first tensor
    std::optional<std::size_t> tokenEmbedding; // index of the (last) token_embd.weight in ModelInfo::tensors
    bool operator==(const WeightGroups&) const = default;
};

// One pass over the tensors.
WeightGroups groupWeights(const ModelInfo& model);

// The tensor a tied model duplicates as its output (llama-model-loader.cpp TENSOR_DUPLICATED).
inline constexpr std::string_view kTokenEmbeddingName = "token_embd.weight";

// --cpu-moe's pattern (common/common.h LLM_FFN_EXPS_REGEX) as regex_search would match it; with
// a block, --n-cpu-moe's "blk\\.<block>" variant. Tested against std::regex by the unit tests.
bool matchesExpertsPattern(std::string_view name, std::optional<std::uint32_t> block);

// The smallest block for which matchesExpertsPattern(name, block) holds; nullopt if none.
std::optional<std::uint32_t> firstExpertsBlock(std::string_view name);

// Whether the tensor is a block's ssm_a (the A of GGML_OP_SSM_SCAN).
bool isSsmScanWeight(const TensorSummary& tensor);

// Whether the haswell CPU backend repacks this weight into CPU_REPACK (tested by the unit tests).
bool cpuRepacks(const TensorSummary& tensor);

// The types cpuRepacks() can accept at all: a cheap first test for the per-tensor loops.
constexpr bool cpuRepackType(GgmlType type) {
    return type == GgmlType::Q4_0 || type == GgmlType::Q4_K || type == GgmlType::IQ4_NL ||
           type == GgmlType::MXFP4;
}

} // namespace llamafit

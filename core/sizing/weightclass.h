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
    // An RWKV-6 time_mix_first: checked against GGML_OP_RWKV_WKV6 (weightplacement.cpp).
    bool wkv6First = false;
    bool operator==(const WeightClass&) const = default;
};

WeightClass classifyWeight(const TensorSummary& tensor);

// llama-model-loader.cpp select_weight_buft takes a buffer type only where its device supports
// an op made up on the weight (weight_buft_supported): the output matrix in mul_mat(w, b) with b
// [ne0, 512] f32, routed experts in mul_mat_id(w, b, ids) with b [ne0, n_expert_used, 512] f32.
// ggml-vulkan.cpp supports_op turns down an op any of whose tensors, sources or result, is over
// the device's limits ("reject any tensors larger than the max buffer size"). This is the largest
// tensor of that op, to hold against those limits: for a 103424-row output matrix of 107 MiB the
// result of 202 MiB, over lavapipe's 128 MiB storage range. `role`: the tensor's, or Output for the
// tied output's copy of token_embd. The other weights' ops are sized by the weight itself.
std::uint64_t weightProbeBytes(const TensorSummary& tensor, TensorRole role, const ModelInfo& model);

struct WeightGroup {
    WeightClass weightClass;
    std::uint64_t bytes = 0;              // summed over the group's tensors
    std::uint64_t largestTensorBytes = 0; // the op-offload copy is one tensor
    std::uint64_t largestProbeBytes = 0;  // weightProbeBytes, the largest of the group's
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

// Whether the tensor is a block's time_mix_first (the time_first of GGML_OP_RWKV_WKV6).
bool isWkv6FirstWeight(const TensorSummary& tensor);

// Whether the haswell CPU backend repacks this weight into CPU_REPACK (tested by the unit tests).
bool cpuRepacks(const TensorSummary& tensor);

// The types cpuRepacks() can accept at all: a cheap first test for the per-tensor loops.
constexpr bool cpuRepackType(GgmlType type) {
    return type == GgmlType::Q4_0 || type == GgmlType::Q4_K || type == GgmlType::IQ4_NL ||
           type == GgmlType::MXFP4;
}

} // namespace llamafit

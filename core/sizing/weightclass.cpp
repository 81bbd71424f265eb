// Tensor -> WeightClass, and the byte-summed groups of a model. The name patterns restate
// common/common.h (--cpu-moe, --n-cpu-moe); the repack rule ggml/src/ggml-cpu/repack.cpp.
#include "core/sizing/weightclass.h"

#include <algorithm>
#include <limits>

namespace llamafit {
namespace {

constexpr std::string_view kFfn = ".ffn_";

// Whether the ".ffn_" at `at` continues as "(up|down|gate|gate_up)_(ch|)exps".
bool expertsPieceAt(std::string_view name, std::size_t at) {
    static constexpr std::string_view kKinds[] = {"up_", "down_", "gate_", "gate_up_"};
    const std::string_view rest = name.substr(at + kFfn.size());
    for (std::string_view kind : kKinds) {
        if (rest.substr(0, kind.size()) == kind) {
            const std::string_view tail = rest.substr(kind.size());
            if (tail.substr(0, 4) == "exps" || tail.substr(0, 6) == "chexps") {
                return true;
            }
        }
    }
    return false;
}

// The block b for which name[0, at) ends with "blk." + std::to_string(b), if any: the digits
// must be the whole digit run before `at` (a '.' precedes them) and read as to_string writes.
std::optional<std::uint32_t> blockBefore(std::string_view name, std::size_t at) {
    std::size_t begin = at;
    while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') {
        --begin;
    }
    const std::string_view digits = name.substr(begin, at - begin);
    constexpr std::string_view kBlk = "blk.";
    if (digits.empty() || digits.size() > 10 || (digits.size() > 1 && digits.front() == '0') ||
        begin < kBlk.size() || name.substr(begin - kBlk.size(), kBlk.size()) != kBlk) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    for (char digit : digits) {
        value = value * 10 + static_cast<std::uint64_t>(digit - '0');
    }
    if (value > std::numeric_limits<std::uint32_t>::max()) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(value);
}

} // namespace

// common/common.h LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps": --cpu-moe keeps
// every routed-expert tensor on the CPU, --n-cpu-moe N those of blocks 0..N-1 ("blk\\.i" + the
// same, llm_ffn_exps_block_regex). Matched by hand with regex_search's meaning: the solvers run
// thousands of estimates, and -ncmoe 60 would otherwise be 60 std::regex searches per tensor.
bool matchesExpertsPattern(std::string_view name, std::optional<std::uint32_t> block) {
    for (std::size_t at = name.find(kFfn); at != std::string_view::npos; at = name.find(kFfn, at + 1)) {
        if (expertsPieceAt(name, at) && (!block || blockBefore(name, at) == block)) {
            return true;
        }
    }
    return false;
}

std::optional<std::uint32_t> firstExpertsBlock(std::string_view name) {
    std::optional<std::uint32_t> first;
    for (std::size_t at = name.find(kFfn); at != std::string_view::npos; at = name.find(kFfn, at + 1)) {
        if (!expertsPieceAt(name, at)) {
            continue;
        }
        if (const auto block = blockBefore(name, at); block && (!first || *block < *first)) {
            first = block;
        }
    }
    return first;
}

bool cpuRepacks(const TensorSummary& tensor) {
    // ggml/src/ggml-cpu/repack.cpp ggml_repack_get_optimal_repack_type on an AVX2 (haswell)
    // CPU: Q4_0, Q4_K, IQ4_NL and MXFP4 with ne[1] % 8 == 0 (Q2_K needs AVX-512, Q5_K/Q6_K/
    // Q8_0 only have ARM/RISC-V kernels; measured: Q8_0 stays in CPU_Mapped). Only weights
    // of MUL_MAT / MUL_MAT_ID qualify, so token embeddings (GET_ROWS) never do.
    if (!cpuRepackType(tensor.type) || tensor.rowValues == 0) {
        return false;
    }
    const std::uint64_t rowBytes = ggmlRowBytes(tensor.type, tensor.rowValues);
    const std::uint64_t rows = rowBytes == 0 ? 0 : tensor.bytes / rowBytes;
    return rows > 0 && rows % 8 == 0;
}

bool isSsmScanWeight(const TensorSummary& tensor) {
    constexpr std::string_view suffix = ".ssm_a";
    return tensor.layer >= 0 && tensor.name.size() > suffix.size() &&
           tensor.name.compare(tensor.name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isWkv6FirstWeight(const TensorSummary& tensor) {
    return tensor.layer >= 0 && tensor.name.ends_with(".time_mix_first.weight");
}

WeightClass classifyWeight(const TensorSummary& tensor) {
    WeightClass out;
    out.role = tensor.role;
    out.layer = tensor.layer;
    out.repacks = cpuRepacks(tensor);
    out.experts = matchesExpertsPattern(tensor.name, std::nullopt);
    out.expertsBlock = out.experts ? firstExpertsBlock(tensor.name) : std::nullopt;
    out.ssmScan = isSsmScanWeight(tensor);
    out.wkv6First = isWkv6FirstWeight(tensor);
    return out;
}

std::uint64_t weightProbeBytes(const TensorSummary& tensor, TensorRole role, const ModelInfo& model) {
    // Bytes of an f32 tensor of `columns` x 512 values; the largest count where a file's absurd
    // shape would overflow (the GGUF reader bounds a tensor's values by 2^63, not by this).
    const auto probeBytes = [](std::uint64_t columns) {
        constexpr std::uint64_t kBytesPerColumn = 512 * sizeof(float);
        constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
        return columns > kMax / kBytesPerColumn ? kMax : columns * kBytesPerColumn;
    };
    const std::uint64_t rows = tensor.rows();
    if (role == TensorRole::Output && rows > 1) {
        // mul_mat(w [ne0, ne1], b [ne0, 512]) -> [ne1, 512]
        return std::max({tensor.bytes, probeBytes(tensor.rowValues), probeBytes(rows)});
    }
    if (tensor.expert && model.expertCount > 0) {
        // mul_mat_id(w [ne0, ne1, n_expert], b [ne0, used, 512], ids) -> [ne1, used, 512]; used is
        // at most n_expert, so neither product exceeds the weight's own values.
        const std::uint64_t used = model.expertUsedCount;
        const std::uint64_t rowsPerExpert = rows / model.expertCount;
        return std::max(
            {tensor.bytes, probeBytes(tensor.rowValues * used), probeBytes(rowsPerExpert * used)});
    }
    return tensor.bytes;
}

WeightGroups groupWeights(const ModelInfo& model) {
    WeightGroups out;
    for (std::size_t i = 0; i < model.tensors.size(); ++i) {
        const TensorSummary& tensor = model.tensors[i];
        const WeightClass weightClass = classifyWeight(tensor);
        // A block's tensors are adjacent in a GGUF, so the group is nearly always among the last few.
        auto group = std::find_if(out.groups.rbegin(), out.groups.rend(),
                                  [&](const WeightGroup& g) { return g.weightClass == weightClass; });
        if (group == out.groups.rend()) {
            out.groups.push_back({weightClass, 0, 0, 0});
            group = out.groups.rbegin();
        }
        group->bytes += tensor.bytes;
        group->largestTensorBytes = std::max(group->largestTensorBytes, tensor.bytes);
        group->largestProbeBytes =
            std::max(group->largestProbeBytes, weightProbeBytes(tensor, tensor.role, model));
        if (tensor.name == kTokenEmbeddingName) {
            out.tokenEmbedding = i;
        }
    }
    return out;
}

} // namespace llamafit

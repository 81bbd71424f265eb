#include "core/gguf/ggmltype.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace llamafit {
namespace {

// Block size and bytes per block, as llama.cpp ggml/src/ggml.c type_traits[] defines them
// (cross-checked against ggml_blck_size / ggml_type_size of Debian's libggml-base 0.27.0).
constexpr std::array kTypeTable = {
    GgmlTypeTraits{GgmlType::F32, "f32", 1, 4, false},
    GgmlTypeTraits{GgmlType::F16, "f16", 1, 2, false},
    GgmlTypeTraits{GgmlType::Q4_0, "q4_0", 32, 18, true},
    GgmlTypeTraits{GgmlType::Q4_1, "q4_1", 32, 20, true},
    GgmlTypeTraits{GgmlType::Q5_0, "q5_0", 32, 22, true},
    GgmlTypeTraits{GgmlType::Q5_1, "q5_1", 32, 24, true},
    GgmlTypeTraits{GgmlType::Q8_0, "q8_0", 32, 34, true},
    GgmlTypeTraits{GgmlType::Q8_1, "q8_1", 32, 36, true},
    GgmlTypeTraits{GgmlType::Q2_K, "q2_K", 256, 84, true},
    GgmlTypeTraits{GgmlType::Q3_K, "q3_K", 256, 110, true},
    GgmlTypeTraits{GgmlType::Q4_K, "q4_K", 256, 144, true},
    GgmlTypeTraits{GgmlType::Q5_K, "q5_K", 256, 176, true},
    GgmlTypeTraits{GgmlType::Q6_K, "q6_K", 256, 210, true},
    GgmlTypeTraits{GgmlType::Q8_K, "q8_K", 256, 292, true},
    GgmlTypeTraits{GgmlType::IQ2_XXS, "iq2_xxs", 256, 66, true},
    GgmlTypeTraits{GgmlType::IQ2_XS, "iq2_xs", 256, 74, true},
    GgmlTypeTraits{GgmlType::IQ3_XXS, "iq3_xxs", 256, 98, true},
    GgmlTypeTraits{GgmlType::IQ1_S, "iq1_s", 256, 50, true},
    GgmlTypeTraits{GgmlType::IQ4_NL, "iq4_nl", 32, 18, true},
    GgmlTypeTraits{GgmlType::IQ3_S, "iq3_s", 256, 110, true},
    GgmlTypeTraits{GgmlType::IQ2_S, "iq2_s", 256, 82, true},
    GgmlTypeTraits{GgmlType::IQ4_XS, "iq4_xs", 256, 136, true},
    GgmlTypeTraits{GgmlType::I8, "i8", 1, 1, false},
    GgmlTypeTraits{GgmlType::I16, "i16", 1, 2, false},
    GgmlTypeTraits{GgmlType::I32, "i32", 1, 4, false},
    GgmlTypeTraits{GgmlType::I64, "i64", 1, 8, false},
    GgmlTypeTraits{GgmlType::F64, "f64", 1, 8, false},
    GgmlTypeTraits{GgmlType::IQ1_M, "iq1_m", 256, 56, true},
    GgmlTypeTraits{GgmlType::BF16, "bf16", 1, 2, false},
    GgmlTypeTraits{GgmlType::TQ1_0, "tq1_0", 256, 54, true},
    GgmlTypeTraits{GgmlType::TQ2_0, "tq2_0", 256, 66, true},
    GgmlTypeTraits{GgmlType::MXFP4, "mxfp4", 32, 17, true},
    GgmlTypeTraits{GgmlType::NVFP4, "nvfp4", 64, 36, true},
    GgmlTypeTraits{GgmlType::Q1_0, "q1_0", 128, 18, true},
    GgmlTypeTraits{GgmlType::Q2_0, "q2_0", 64, 18, true},
};

// Ids ggml once had and removed from GGUF files (ggml/include/ggml.h comments).
constexpr std::array<std::uint32_t, 8> kRemovedTypeIds = {4, 5, 31, 32, 33, 36, 37, 38};

const GgmlTypeTraits* findTraits(std::uint32_t typeId) {
    for (const auto& traits : kTypeTable) {
        if (static_cast<std::uint32_t>(traits.type) == typeId) {
            return &traits;
        }
    }
    return nullptr;
}

} // namespace

Result<GgmlTypeTraits> ggmlTypeTraits(std::uint32_t typeId) {
    if (const auto* traits = findTraits(typeId)) {
        return *traits;
    }
    if (std::find(kRemovedTypeIds.begin(), kRemovedTypeIds.end(), typeId) != kRemovedTypeIds.end()) {
        return makeError(
            "gguf.removed-tensor-type",
            "tensor type id " + std::to_string(typeId) +
                " was removed from ggml (repacked Q4_0/IQ4_NL variants are made at load time now)");
    }
    return makeError("gguf.unknown-tensor-type",
                     "unknown tensor type id " + std::to_string(typeId) + " (this build knows ids 0-" +
                         std::to_string(static_cast<std::uint32_t>(GgmlType::Q2_0)) + ")");
}

const GgmlTypeTraits& ggmlTypeTraits(GgmlType type) {
    return *findTraits(static_cast<std::uint32_t>(type));
}

std::optional<GgmlType> ggmlTypeFromName(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& traits : kTypeTable) {
        std::string candidate(traits.name);
        std::transform(candidate.begin(), candidate.end(), candidate.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (candidate == lower) {
            return traits.type;
        }
    }
    return std::nullopt;
}

std::string_view ggmlTypeName(GgmlType type) {
    return ggmlTypeTraits(type).name;
}

std::uint64_t ggmlRowBytes(GgmlType type, std::uint64_t values) {
    const auto& traits = ggmlTypeTraits(type);
    return values / traits.blockSize * traits.bytesPerBlock;
}

bool ggmlRowDivisible(GgmlType type, std::uint64_t values) {
    return values % ggmlTypeTraits(type).blockSize == 0;
}

} // namespace llamafit

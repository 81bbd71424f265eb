#pragma once
// The ggml tensor type table: block size and bytes per block for every type id a
// GGUF file can hold today. Used by the GGUF reader (tensor bytes), the model
// interpreter (weight bytes by type) and the sizing core (KV row bytes).
// Values follow llama.cpp ggml/src/ggml.c type_traits (ggml_blck_size / ggml_type_size).

#include "core/common/result.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace llamafit {

// Numeric values are the on-disk GGUF type ids (ggml/include/ggml.h enum ggml_type).
enum class GgmlType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    // 4, 5: Q4_2, Q4_3 (removed)
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    // 31..33: Q4_0_4_4, Q4_0_4_8, Q4_0_8_8 (removed; repacking is done at load time now)
    TQ1_0 = 34,
    TQ2_0 = 35,
    // 36..38: IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8 (removed)
    MXFP4 = 39,
    NVFP4 = 40,
    Q1_0 = 41,
    Q2_0 = 42,
};

struct GgmlTypeTraits {
    GgmlType type = GgmlType::F32;
    std::string_view name;           // lower-case, as llama.cpp prints it: "q8_0", "q6_K", "bf16"
    std::uint32_t blockSize = 1;     // values per block
    std::uint32_t bytesPerBlock = 4; // bytes per block
    bool quantized = false;
    bool operator==(const GgmlTypeTraits&) const = default;
};

// Traits of a type id read from a file. Unknown ids -> "gguf.unknown-tensor-type";
// ids that ggml removed (4, 5, 31-33, 36-38) -> "gguf.removed-tensor-type".
Result<GgmlTypeTraits> ggmlTypeTraits(std::uint32_t typeId);
// Precondition: `type` is one of the enumerators above (values read from files go through the id overload).
const GgmlTypeTraits& ggmlTypeTraits(GgmlType type);

// Parses llama.cpp's spelling ("q8_0", "Q8_0", "f16", "bf16"), case-insensitive.
std::optional<GgmlType> ggmlTypeFromName(std::string_view name);
std::string_view ggmlTypeName(GgmlType type);

// ggml_row_size: bytes of one row of `values` elements; values must be a multiple of the
// block size (callers validate that first, see rowBytesDivisible).
std::uint64_t ggmlRowBytes(GgmlType type, std::uint64_t values);
bool ggmlRowDivisible(GgmlType type, std::uint64_t values);

} // namespace llamafit

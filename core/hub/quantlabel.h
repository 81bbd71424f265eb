#pragma once
// The quant label of a GGUF file name, as the Hugging Face Hub shows it, and the two orders the
// product needs of labels: quality (biggest first) and bit width.
//
// The label rule is @huggingface/tasks' (packages/tasks/src/gguf.ts, GGUF_QUANT_RE and
// parseGGUFQuantLabel): the name upper-cased, an optional "UD-" (unsloth dynamic) prefix, one of
// llama.cpp's file quantization types (llama_ftype names) or unsloth's *_K_XL pseudo-types, and
// an optional "_" + letters size variation; where a name holds several, the last one wins
// ("Qwen3-8B-Q8_0-Q4_K_M.gguf" is Q4_K_M). The quality order is that file's GGUF_QUANT_ORDER.
// The bit width is llama.cpp's (common/download.cpp extract_quant_bits: Q4_0 -> 4, F16 -> 16,
// Q8_K_M -> 8), which pairs a projector with the model closest in bits.
// Pure functions.

#include <optional>
#include <string>
#include <string_view>

namespace llamafit {

// "UD-Q4_K_XL", "Q4_K_M", "BF16", "IQ2_XXS"; nullopt when the name holds no quant type.
std::optional<std::string> quantLabelOf(std::string_view fileName);

// Position in the Hub's quality order, 0 for F32 (the biggest); a "UD-" label ranks as its
// quant. nullopt for a label outside the order (TQ names are in it, Q4_0_4_4 too).
std::optional<int> quantQualityRank(std::string_view label);

// The label's bit width: the first number after its letters ("IQ4_XS" 4, "BF16" 16, "UD-Q2_K_XL"
// 2); nullopt when the label has none.
std::optional<int> quantBits(std::string_view label);

} // namespace llamafit

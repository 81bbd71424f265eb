// Quant labels of GGUF file names; see quantlabel.h.

#include "core/hub/quantlabel.h"

#include "core/common/asciitext.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace llamafit {

namespace {

// llama.cpp's file types in @huggingface/tasks' enum order (GGMLFileQuantizationType): the
// label regex tries them in this order at each position, so the first that matches wins
// ("Q2_K" before "Q2_K_XL", whose "_XL" then comes back as the size variation).
constexpr std::array<std::string_view, 45> kTypesInMatchOrder{
    "F32",     "F16",      "Q4_0",     "Q4_1",     "Q4_1_SOME_F16", "Q4_2",   "Q4_3",      "Q8_0",
    "Q5_0",    "Q5_1",     "Q2_K",     "Q3_K_S",   "Q3_K_M",        "Q3_K_L", "Q4_K_S",    "Q4_K_M",
    "Q5_K_S",  "Q5_K_M",   "Q6_K",     "IQ2_XXS",  "IQ2_XS",        "Q2_K_S", "IQ3_XS",    "IQ3_XXS",
    "IQ1_S",   "IQ4_NL",   "IQ3_S",    "IQ3_M",    "IQ2_S",         "IQ2_M",  "IQ4_XS",    "IQ1_M",
    "BF16",    "Q4_0_4_4", "Q4_0_4_8", "Q4_0_8_8", "TQ1_0",         "TQ2_0",  "MXFP4_MOE", "Q2_K_XL",
    "Q3_K_XL", "Q4_K_XL",  "Q5_K_XL",  "Q6_K_XL",  "Q8_K_XL"};

// GGUF_QUANT_ORDER: biggest (best quality) first.
constexpr std::array<std::string_view, 45> kQualityOrder{
    "F32",     "BF16",      "F16",      "Q8_K_XL",  "Q8_0",          "Q6_K_XL", "Q6_K",   "Q5_K_XL",
    "Q5_K_M",  "Q5_K_S",    "Q5_0",     "Q5_1",     "Q4_K_XL",       "Q4_K_M",  "Q4_K_S", "IQ4_NL",
    "IQ4_XS",  "Q4_0_4_4",  "Q4_0_4_8", "Q4_0_8_8", "Q4_1_SOME_F16", "Q4_0",    "Q4_1",   "Q4_2",
    "Q4_3",    "MXFP4_MOE", "Q3_K_XL",  "Q3_K_L",   "Q3_K_M",        "Q3_K_S",  "IQ3_M",  "IQ3_S",
    "IQ3_XS",  "IQ3_XXS",   "Q2_K_XL",  "Q2_K",     "Q2_K_S",        "IQ2_M",   "IQ2_S",  "IQ2_XS",
    "IQ2_XXS", "IQ1_S",     "IQ1_M",    "TQ1_0",    "TQ2_0"};

constexpr std::string_view kDynamicPrefix = "UD-";

bool isUpperLetter(char c) {
    return c >= 'A' && c <= 'Z';
}

// The length of the label match starting exactly at `at` (prefix, type, size variation), 0 when
// none starts there.
std::size_t matchAt(std::string_view name, std::size_t at) {
    std::size_t begin = at;
    if (name.substr(at).starts_with(kDynamicPrefix)) {
        begin += kDynamicPrefix.size();
    }
    // The prefix is optional: where "UD-" is not followed by a type, a type may still start at `at`.
    for (const std::size_t typeStart : {begin, at}) {
        const std::string_view rest = name.substr(typeStart);
        const auto type = std::find_if(kTypesInMatchOrder.begin(), kTypesInMatchOrder.end(),
                                       [&](std::string_view t) { return rest.starts_with(t); });
        if (type == kTypesInMatchOrder.end()) {
            continue;
        }
        std::size_t end = typeStart + type->size();
        if (end + 1 < name.size() && name[end] == '_' && isUpperLetter(name[end + 1])) {
            end += 2;
            while (end < name.size() && isUpperLetter(name[end])) {
                ++end;
            }
        }
        return end - at;
    }
    return 0;
}

std::string_view withoutDynamicPrefix(std::string_view label) {
    return label.starts_with(kDynamicPrefix) ? label.substr(kDynamicPrefix.size()) : label;
}

} // namespace

std::optional<std::string> quantLabelOf(std::string_view fileName) {
    const std::string upper = asciiUpper(fileName);
    std::optional<std::string> last;
    for (std::size_t at = 0; at < upper.size();) {
        const std::size_t length = matchAt(upper, at);
        if (length == 0) {
            ++at;
            continue;
        }
        last = upper.substr(at, length);
        at += length;
    }
    return last;
}

std::optional<int> quantQualityRank(std::string_view label) {
    const std::string_view quant = withoutDynamicPrefix(label);
    const auto found = std::find(kQualityOrder.begin(), kQualityOrder.end(), quant);
    if (found == kQualityOrder.end()) {
        return std::nullopt;
    }
    return static_cast<int>(found - kQualityOrder.begin());
}

std::optional<int> quantBits(std::string_view label) {
    const std::string_view quant = withoutDynamicPrefix(label);
    std::size_t at = 0;
    while (at < quant.size() && std::isalpha(static_cast<unsigned char>(quant[at]))) {
        ++at;
    }
    int bits = 0;
    std::size_t digits = 0;
    for (; at < quant.size() && std::isdigit(static_cast<unsigned char>(quant[at])) && digits < 3;
         ++at, ++digits) {
        bits = bits * 10 + (quant[at] - '0');
    }
    if (digits == 0) {
        return std::nullopt;
    }
    return bits;
}

} // namespace llamafit

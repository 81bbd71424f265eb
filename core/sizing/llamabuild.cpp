#include "core/sizing/llamabuild.h"

#include <charconv>

namespace llamafit {

namespace {

// #23764 (kF16FlashMaskBuild) is the first of the three memory changes of BeforeJune2026 (#23861,
// b9460, and #23907, b9489, follow within days: a build between b9410 and b9488 has only some of them).
constexpr std::uint32_t kJune2026Build = kF16FlashMaskBuild;

} // namespace

LlamaGeneration generationOfBuild(std::uint32_t build) {
    if (build >= kMixedInputBuild) {
        return LlamaGeneration::Current;
    }
    if (build >= kJune2026Build) {
        return LlamaGeneration::BeforeMixedInput;
    }
    if (build >= kInputSelectBuild) {
        return LlamaGeneration::BeforeJune2026;
    }
    return LlamaGeneration::BeforeInputSelect;
}

Result<std::uint32_t> parseLlamaBuild(std::string_view text) {
    std::string_view digits = text;
    if (digits.starts_with('b') || digits.starts_with('B')) {
        digits.remove_prefix(1);
    }
    std::uint32_t build = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), build);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || build == 0) {
        return makeError("settings.bad-value",
                         "'" + std::string(text) +
                             "' is not a llama.cpp build: give its number, as b11669 or 11669");
    }
    return build;
}

std::string sizedForText(std::uint32_t build) {
    return "b" + std::to_string(build);
}

} // namespace llamafit

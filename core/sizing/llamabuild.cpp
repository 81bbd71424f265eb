#include "core/sizing/llamabuild.h"

#include <charconv>

namespace llamafit {

namespace {

// The build numbers of the pull requests that changed the reserve, read from llama.cpp's history
// (the commit count at each merge):
// - #18550 "ggml : add ggml_build_forward_select" (2026-01-19): b7774, the selectable inputs;
// - #23764 "llama: use f16 mask for FA to save VRAM" (2026-05-29): b9410, the first of the three
//   memory changes of BeforeJune2026 (#23861, b9460, and #23907, b9489, follow within days: a build
//   between b9410 and b9488 has only some of them);
// - the mixed token/embedding input: after b11151 (the last build a public log shows without it)
//   and in b11669, so builds between the two are taken to be without it.
constexpr std::uint32_t kInputSelectBuild = 7774;
constexpr std::uint32_t kJune2026Build = 9410;

} // namespace

LlamaGeneration generationOfBuild(std::uint32_t build) {
    if (build >= kReferenceLlamaBuild) {
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
    const std::string name = "b" + std::to_string(build);
    switch (generationOfBuild(build)) {
    case LlamaGeneration::Current:
        return name;
    case LlamaGeneration::BeforeMixedInput:
        return name + " (sized with the rules of builds b" + std::to_string(kJune2026Build) + " to b" +
               std::to_string(kReferenceLlamaBuild - 1) + ")";
    case LlamaGeneration::BeforeJune2026:
        return name + " (sized with the rules of builds b" + std::to_string(kInputSelectBuild) + " to b" +
               std::to_string(kJune2026Build - 1) + ")";
    case LlamaGeneration::BeforeInputSelect:
        return name + " (sized with the rules of builds before b" + std::to_string(kInputSelectBuild) + ")";
    }
    return name;
}

} // namespace llamafit

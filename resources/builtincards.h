#pragma once
// The built-in model cards as compiled-in text: resources/cards/*.json, embedded by
// resources/embedtexts.cmake at build time. Read only by core/model/modelspec_cards.cpp,
// which parses them into ModelSpec values (builtinModelCards()).

#include <span>
#include <string_view>

namespace llamafit::resources {

struct EmbeddedText {
    std::string_view fileName; // "qwen3.5-35b-a3b-q6_k.json"
    std::string_view text;     // the file's bytes
};

std::span<const EmbeddedText> builtinCardTexts();

} // namespace llamafit::resources

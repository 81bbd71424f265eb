#pragma once
// What the fuzz harnesses share: the input as text, and a split of it into words for
// argv-shaped parsers. Fuzz support only.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// NUL and newline separate words: how a corpus file spells an argv.
inline std::vector<std::string> asWords(std::string_view text) {
    std::vector<std::string> words(1);
    for (const char c : text) {
        if (c == '\0' || c == '\n') {
            words.emplace_back();
        } else {
            words.back() += c;
        }
    }
    return words;
}

} // namespace llamafit::fuzz

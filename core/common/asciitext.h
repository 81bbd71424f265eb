#pragma once
// ASCII-only text helpers for protocol and file-format words (HTTP headers, JSON keys, quant
// labels, flag values): upper/lower case and trimming that leave every other byte, UTF-8 included,
// as it is. One home for what several parsers wrote again.

#include <string>
#include <string_view>

namespace llamafit {

inline std::string asciiLower(std::string_view text) {
    std::string lower(text);
    for (char& c : lower) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return lower;
}

inline std::string asciiUpper(std::string_view text) {
    std::string upper(text);
    for (char& c : upper) {
        if (c >= 'a' && c <= 'z') {
            c = static_cast<char>(c - 'a' + 'A');
        }
    }
    return upper;
}

// Without leading and trailing spaces, tabs, CR and LF.
inline std::string asciiTrimmed(std::string_view text) {
    const auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
    };
    while (!text.empty() && space(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && space(text.back())) {
        text.remove_suffix(1);
    }
    return std::string(text);
}

} // namespace llamafit

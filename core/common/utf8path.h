#pragma once
// UTF-8 text <-> std::filesystem::path. The core keeps paths as UTF-8 std::string (the GUI
// hands them over with QString::toStdString(), the CLI from argv). On Linux a narrow path is
// UTF-8 already; on Windows std::filesystem::path(std::string) and path::string() use the ANSI
// code page, which cannot spell most non-ASCII names (a Japanese folder, "Modèles"), and
// std::ifstream(std::string) opens through that code page too. Every place in the core that
// turns a UTF-8 path into a file system call, or a listed path back into text, goes through
// these two, so both platforms read the same bytes. A listed path comes back with '/' between
// its parts on both (the generic format): Qt spells Windows paths that way too, so a path from
// the library scan, the file dialog and the settings compares equal as text, where
// std::filesystem's own appends would give "C:/models\\a.gguf". Pure functions; no I/O.

#include <filesystem>
#include <string>
#include <string_view>

namespace llamafit {

inline std::filesystem::path pathFromUtf8(std::string_view utf8) {
    return std::filesystem::path(std::u8string(utf8.begin(), utf8.end()));
}

inline std::string utf8FromPath(const std::filesystem::path& path) {
    const std::u8string text = path.generic_u8string();
    return std::string(text.begin(), text.end());
}

} // namespace llamafit

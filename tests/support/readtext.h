#pragma once
// A whole file as text, "" where it cannot be read: the tests compare what a tool wrote.

#include <fstream>
#include <sstream>
#include <string>

namespace llamafit::test {

inline std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace llamafit::test

#pragma once
// Reads a capture from tests/data/server (real llama-server 0.7.0 output; see README.md there).

#include <fstream>
#include <sstream>
#include <string>

namespace llamafit::testdata {

inline std::string readServerCapture(const std::string& name) {
    std::ifstream file(std::string(LLAMAFIT_TEST_SERVER_DATA_DIR) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

} // namespace llamafit::testdata

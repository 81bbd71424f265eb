#pragma once
// ScratchDir: a fresh directory under GoogleTest's TempDir() for one test, removed with
// everything in it when the test ends. Test code only.

#include "tests/support/tempfolder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

namespace llamafit::test {

class ScratchDir {
  public:
    ScratchDir() { m_path = makeTempFolder("llamafit-gguf-"); }
    ~ScratchDir() {
        std::error_code ec;
        if (!m_path.empty()) {
            std::filesystem::remove_all(m_path, ec);
        }
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    bool valid() const { return !m_path.empty(); }
    std::string path(const std::string& name) const { return m_path + "/" + name; }

    // Writes `bytes` to `name` and returns the full path.
    std::string write(const std::string& name, std::span<const std::uint8_t> bytes) const {
        const std::string full = path(name);
        std::ofstream out(full, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return full;
    }

  private:
    std::string m_path;
};

} // namespace llamafit::test

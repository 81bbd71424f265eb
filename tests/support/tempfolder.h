#pragma once
// makeTempFolder: a new, empty folder under GoogleTest's TempDir() with a random name, for
// the scratch folders of the unit tests (gguf's ScratchDir, library's LibraryDir). Portable
// where mkdtemp() is not: the Windows build of the unit tests runs them too, and there
// TempDir() is a drive-letter path with backslashes. Test code only; header-only.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace llamafit::test {

// The folder's path (as TempDir() spells it, plus prefix and a number); empty if no folder
// could be made.
inline std::string makeTempFolder(const std::string& prefix) {
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string candidate = ::testing::TempDir() + prefix + std::to_string(random());
        std::error_code ec;
        if (std::filesystem::create_directory(candidate, ec)) {
            return candidate;
        }
    }
    return {};
}

} // namespace llamafit::test

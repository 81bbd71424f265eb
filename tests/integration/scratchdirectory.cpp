#include "tests/integration/scratchdirectory.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>

namespace llamafit::test {
namespace {

// gtest tears environments down after the last test, also when tests failed.
class ScratchCleanup : public ::testing::Environment {
  public:
    explicit ScratchCleanup(std::string path) : m_path(std::move(path)) {}
    void TearDown() override {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }

  private:
    std::string m_path;
};

} // namespace

const std::string& scratchDirectory(std::string& error) {
    static std::string path;
    static std::string failure;
    if (path.empty() && failure.empty()) {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/llamafit-integration-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) {
            failure = "mkdtemp " + pattern + ": " + std::strerror(errno);
        } else {
            path = pattern;
            ::testing::AddGlobalTestEnvironment(new ScratchCleanup(path));
        }
    }
    error = failure;
    return path;
}

} // namespace llamafit::test

// Where llama-server builds are looked for, per OS.

#include "core/server/enginelocations.h"

#include "tests/support/environmentof.h"

#include <gtest/gtest.h>

#include <map>

namespace llamafit {
namespace {

using test::environmentOf;

std::vector<std::string> paths(const EngineSearch& search) {
    std::vector<std::string> out;
    for (const EngineLocation& location : search.programs) {
        out.push_back(location.path + " (" + location.origin + ")");
    }
    return out;
}

TEST(EngineLocations, LinuxLooksOnPathThenDebianAndHomebrew) {
    const EngineSearch search =
        engineSearch(environmentOf({{"PATH", "/opt/llama/bin:/usr/bin::/usr/local/bin/"}}), "/home/u",
                     OsKind::Linux, {"/home/u/.local/share/llamafit/engines/b7000"});
    EXPECT_EQ(paths(search), (std::vector<std::string>{
                                 "/home/u/.local/share/llamafit/engines/b7000/llama-server (LlamaFit)",
                                 "/opt/llama/bin/llama-server (PATH)",
                                 "/usr/bin/llama-server (PATH)", // listed once, as PATH found it
                                 "/usr/local/bin/llama-server (PATH)",
                                 "/home/linuxbrew/.linuxbrew/bin/llama-server (Homebrew)",
                                 "/home/u/.linuxbrew/bin/llama-server (Homebrew)",
                             }));
    EXPECT_TRUE(search.folderScans.empty());
}

TEST(EngineLocations, WindowsLooksInWingetsLinksAndPackages) {
    const EngineSearch search =
        engineSearch(environmentOf({{"PATH", "C:\\Windows\\system32;C:\\llama\\"},
                                    {"LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local"}}),
                     "C:\\Users\\u", OsKind::Windows);
    EXPECT_EQ(paths(search),
              (std::vector<std::string>{
                  "C:\\Windows\\system32\\llama-server.exe (PATH)",
                  "C:\\llama\\llama-server.exe (PATH)",
                  "C:\\Users\\u\\AppData\\Local\\Microsoft\\WinGet\\Links\\llama-server.exe (winget)",
              }));
    ASSERT_EQ(search.folderScans.size(), 1U);
    EXPECT_EQ(search.folderScans.front().folder, "C:\\Users\\u\\AppData\\Local\\Microsoft\\WinGet\\Packages");
    EXPECT_EQ(search.folderScans.front().subfolderPrefix, "ggml.llamacpp_");
}

TEST(EngineLocations, MacLooksInBothHomebrewPrefixes) {
    const EngineSearch search = engineSearch(environmentOf({}), "/Users/u", OsKind::MacOs);
    EXPECT_EQ(paths(search), (std::vector<std::string>{"/opt/homebrew/bin/llama-server (Homebrew)",
                                                       "/usr/local/bin/llama-server (Homebrew)"}));
}

} // namespace
} // namespace llamafit

// UTF-8 text <-> std::filesystem::path (core/common/utf8path.h): non-ASCII names survive both
// ways, and a path built with std::filesystem's appends reads back with '/' between its parts on
// every platform, as Qt spells it (on Windows the append alone gives "C:/models\\a.gguf", and
// the library's rows then matched no path the GUI asked for).

#include "core/common/utf8path.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(Utf8Path, NonAsciiNamesRoundTrip) {
    const std::string name = "C:/Users/José/モデル/Qwen3.5 Q4_K_M.gguf";
    EXPECT_EQ(utf8FromPath(pathFromUtf8(name)), name);
}

TEST(Utf8Path, AppendedPartsAreJoinedWithSlashes) {
    const std::filesystem::path folder = pathFromUtf8("C:/models/モデル");
    EXPECT_EQ(utf8FromPath(folder / pathFromUtf8("sub") / pathFromUtf8("a.gguf")),
              "C:/models/モデル/sub/a.gguf");
}

#ifdef _WIN32
TEST(Utf8Path, WindowsBackslashesReadBackAsSlashes) {
    EXPECT_EQ(utf8FromPath(pathFromUtf8("C:\\models\\a.gguf")), "C:/models/a.gguf");
}
#endif

} // namespace
} // namespace llamafit

// A llama-server command line (words separated by NUL or newline) -> parseServerArgs, and for
// what parses, the flags written back and read again.
#include "tests/fuzz/fuzzinput.h"

#include "core/flags/serverargs.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace llamafit;
    auto parsed = parseServerArgs(fuzz::asWords(fuzz::asText(data, size)));
    if (!parsed) {
        return 0;
    }
    auto again = parseServerArgs(toServerArgs(parsed->settings));
    // toServerArgs promises parseServerArgs(toServerArgs(s)).settings == s (serverargs.h).
    if (!again || !(again->settings == parsed->settings)) {
        std::abort();
    }
    return 0;
}

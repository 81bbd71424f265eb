// Machine profile JSON -> parseMachineProfile; what parses is written back and read again.
#include "tests/fuzz/fuzzinput.h"

#include "core/machine/machineprofile.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto machine = llamafit::parseMachineProfile(llamafit::fuzz::asText(data, size));
    if (!machine) {
        return 0;
    }
    // machineprofile.h promises parse(json(m)) == m.
    auto again = llamafit::parseMachineProfile(llamafit::machineProfileJson(*machine));
    if (!again || !(*again == *machine)) {
        std::abort();
    }
    return 0;
}

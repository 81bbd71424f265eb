// ModelSpec JSON (tests/data/shapes, model cards) -> parseModelSpec.
#include "tests/fuzz/fuzzinput.h"

#include "core/model/modelspec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    (void)llamafit::parseModelSpec(llamafit::fuzz::asText(data, size));
    return 0;
}

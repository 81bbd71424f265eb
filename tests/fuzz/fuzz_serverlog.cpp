// llama-server output -> every parser that reads it: the allocation log (-lv 4 buffer lines),
// the --log-jsonl form, the log-prefix stripper and the timing lines.
#include "tests/fuzz/fuzzinput.h"

#include "core/server/allocationlog.h"
#include "core/server/jsonlog.h"
#include "core/server/logscanner.h"
#include "core/server/throughput.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace llamafit;
    const std::string_view text = fuzz::asText(data, size);
    (void)parseAllocationLog(text);
    (void)parseJsonLog(text);
    (void)stripLogPrefix(text);
    (void)parseTimingLines(text);
    return 0;
}

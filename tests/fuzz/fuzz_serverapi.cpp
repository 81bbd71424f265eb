// What the monitor reads from a running server: Prometheus /metrics text, /slots, /props and
// /health bodies.
#include "tests/fuzz/fuzzinput.h"

#include "core/server/prometheusmetrics.h"
#include "core/server/slotsjson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace llamafit;
    const std::string_view text = fuzz::asText(data, size);
    (void)parsePrometheusMetrics(text);
    (void)parseSlotsJson(text);
    (void)parsePropsJson(text);
    (void)parseHealth(200, text);
    (void)parseHealth(503, text);
    return 0;
}

// Speed figures as text and JSON; see speedoutput.h.
#include "app/cli/speedoutput.h"

#include <charconv>
#include <cstdio>

namespace llamafit {

Result<std::optional<double>> positiveNumberOption(const CliOptions& options, const char* name) {
    const std::optional<std::string> text = options.value(name);
    if (!text) {
        return std::optional<double>();
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size() || value <= 0) {
        Error error =
            makeError("cli.bad-value", std::string(name) + " takes a positive number, not '" + *text + "'");
        error.flag = name;
        return error;
    }
    return std::optional<double>(value);
}

Json speedJson(const std::optional<SpeedPrediction>& prediction, std::uint32_t filledTokens,
               const std::string& why) {
    if (!prediction) {
        return {{"decode_tps_bound", nullptr},    {"decode_tps_expected", nullptr},
                {"prompt_tps_expected", nullptr}, {"decode_efficiency", nullptr},
                {"prompt_efficiency", nullptr},   {"filled_tokens", filledTokens},
                {"source", "no-bandwidth"},       {"source_detail", why}};
    }
    return {{"decode_tps_bound", prediction->decodeTpsBound},
            {"decode_tps_expected", prediction->decodeTpsExpected},
            {"prompt_tps_expected",
             prediction->promptTpsExpected ? Json(*prediction->promptTpsExpected) : Json(nullptr)},
            {"decode_efficiency", prediction->efficiency.decode},
            {"prompt_efficiency", prediction->efficiency.prompt},
            {"filled_tokens", filledTokens},
            {"source", std::string(speedSourceName(prediction->efficiency.source))},
            {"source_detail", prediction->efficiency.description}};
}

void printSpeedText(std::ostream& out, const std::optional<SpeedPrediction>& prediction,
                    std::uint32_t filledTokens, const std::string& why) {
    if (!prediction) {
        if (!why.empty()) {
            out << "Speed     " << why << "\n";
        }
        return;
    }
    char line[200];
    std::snprintf(line, sizeof line, "Speed     at %u filled tokens: ", filledTokens);
    out << line << describeSpeed(*prediction) << "\n";
}

} // namespace llamafit

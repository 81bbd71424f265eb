// The LoRA flags; see adapterflags.h. Value rules: llama.cpp common/arg.cpp (--lora and
// --lora-scaled split their value on commas; --lora-scaled splits each entry at its last ':'
// into the file and a float scale).

#include "core/flags/adapterflags.h"

#include "core/flags/flagvalues.h"
#include "core/flags/serverargs.h"

#include <charconv>
#include <cstdio>
#include <string>

namespace llamafit::adapterflags {

namespace {

Error badLora(std::string_view spelling, std::string_view value, std::string_view expected) {
    Error error = badValue(spelling, value, expected);
    error.settings = {Setting::LoraAdapters};
    error.flag = std::string(spelling);
    return error;
}

std::vector<std::string_view> entries(std::string_view value) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        parts.push_back(value.substr(start, comma - start));
        start = comma + 1;
    }
    return parts;
}

std::string scaleText(double scale) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", scale);
    return text;
}

} // namespace

std::optional<Error> readLora(std::string_view spelling, const FlagValues& values, ParsedServerArgs& parsed) {
    for (const std::string_view path : entries(values.front())) {
        if (path.empty()) {
            return badLora(spelling, values.front(), "FILE[,FILE...]");
        }
        parsed.settings.loraAdapters.push_back({std::string(path), 1.0});
    }
    return std::nullopt;
}

std::optional<Error> readLoraScaled(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed) {
    constexpr std::string_view kExpected = "FILE:SCALE[,FILE:SCALE...], e.g. adapter.gguf:0.5";
    for (const std::string_view entry : entries(values.front())) {
        const std::size_t colon = entry.rfind(':');
        if (colon == std::string_view::npos || colon == 0) {
            return badLora(spelling, values.front(), kExpected);
        }
        const std::string scaleWord(entry.substr(colon + 1));
        double scale = 0;
        const auto [end, error] =
            std::from_chars(scaleWord.data(), scaleWord.data() + scaleWord.size(), scale);
        if (error != std::errc{} || end != scaleWord.data() + scaleWord.size()) {
            return badLora(spelling, values.front(), kExpected);
        }
        parsed.settings.loraAdapters.push_back({std::string(entry.substr(0, colon)), scale});
    }
    return std::nullopt;
}

std::vector<FlagValues> writeLoraScaled(const ServerSettings& settings) {
    if (settings.loraAdapters.empty()) {
        return {};
    }
    std::string text;
    for (const LoraAdapterSetting& adapter : settings.loraAdapters) {
        text += (text.empty() ? "" : ",") + adapter.path + ":" + scaleText(adapter.scale);
    }
    return {FlagValues{std::move(text)}};
}

} // namespace llamafit::adapterflags

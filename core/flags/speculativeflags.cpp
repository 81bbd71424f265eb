// The speculative-decoding flags; see speculativeflags.h. Value rules: llama.cpp common/arg.cpp
// (--spec-type takes a comma list of the names it prints, "none" included; the draft counts are
// integers).

#include "core/flags/speculativeflags.h"

#include "core/flags/flagvalues.h"
#include "core/flags/serverargs.h"

#include <algorithm>
#include <string>

namespace llamafit::speculativeflags {

namespace {

constexpr std::string_view kTypeList =
    "none, draft-simple, draft-eagle3, draft-mtp, draft-dflash, draft-dspark, "
    "ngram-simple, ngram-map-k, ngram-map-k4v, ngram-mod or ngram-cache "
    "(comma-separated)";

Error withSetting(Error error, Setting setting, std::string_view spelling) {
    error.settings = {setting};
    error.flag = std::string(spelling);
    return error;
}

} // namespace

std::optional<Error> readSpecType(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed) {
    const std::string_view value = values.front();
    std::vector<SpeculativeType> types;
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string_view name = value.substr(start, comma - start);
        if (name != "none") {
            const std::optional<SpeculativeType> type = speculativeTypeFromName(name);
            if (!type) {
                return withSetting(badValue(spelling, value, kTypeList), Setting::SpeculativeType, spelling);
            }
            if (std::find(types.begin(), types.end(), *type) == types.end()) {
                types.push_back(*type);
            }
        }
        start = comma + 1;
    }
    parsed.settings.speculative.types = std::move(types); // a later --spec-type replaces the list
    return std::nullopt;
}

std::optional<Error> readDraftMax(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed) {
    return readUint32(spelling, values.front(), parsed.settings.speculative.draftMax);
}

std::optional<Error> readDraftUbatch(std::string_view spelling, const FlagValues& values,
                                     ParsedServerArgs& parsed) {
    return readUint32(spelling, values.front(), parsed.settings.speculative.draftUbatch);
}

std::vector<FlagValues> writeSpecType(const ServerSettings& settings) {
    if (settings.speculative.types.empty()) {
        return {};
    }
    std::string text;
    for (const SpeculativeType type : settings.speculative.types) {
        text += (text.empty() ? "" : ",") + std::string(speculativeTypeName(type));
    }
    return {FlagValues{std::move(text)}};
}

std::vector<FlagValues> writeDraftMax(const ServerSettings& settings) {
    if (settings.speculative.draftMax == SpeculativeSettings{}.draftMax) {
        return {};
    }
    return {FlagValues{std::to_string(settings.speculative.draftMax)}};
}

std::vector<FlagValues> writeDraftUbatch(const ServerSettings& settings) {
    if (settings.speculative.draftUbatch == SpeculativeSettings{}.draftUbatch) {
        return {};
    }
    return {FlagValues{std::to_string(settings.speculative.draftUbatch)}};
}

} // namespace llamafit::speculativeflags

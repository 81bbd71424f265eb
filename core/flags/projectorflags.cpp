// The vision projector flags; see projectorflags.h. Value rules: llama.cpp common/arg.cpp
// (--mmproj takes a path; --image-min-tokens / --image-max-tokens an integer, read with std::stoi;
// --mmproj-offload / --no-mmproj-offload are switches).

#include "core/flags/projectorflags.h"

#include "core/flags/flagvalues.h"
#include "core/flags/serverargs.h"

namespace llamafit::projectorflags {

namespace {

std::vector<FlagValues> once(std::string value) {
    return {FlagValues{std::move(value)}};
}

std::optional<Error> readTokens(std::string_view spelling, const FlagValues& values, Setting setting,
                                std::optional<std::uint32_t>& out) {
    if (auto bad = readUint32(spelling, values.front(), out)) {
        bad->settings = {setting};
        return bad;
    }
    return std::nullopt;
}

} // namespace

std::optional<Error> readProjector(std::string_view spelling, const FlagValues& values,
                                   ParsedServerArgs& parsed) {
    if (values.front().empty()) {
        Error error = badValue(spelling, values.front(), "a projector file (mmproj-*.gguf)");
        error.settings = {Setting::Projector};
        return error;
    }
    parsed.settings.projector.path = values.front();
    return std::nullopt;
}

std::optional<Error> readOffload(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.projector.offload = true;
    return std::nullopt;
}

std::optional<Error> readNoOffload(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.projector.offload = false;
    return std::nullopt;
}

std::optional<Error> readImageMinTokens(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed) {
    return readTokens(spelling, values, Setting::ImageMinTokens, parsed.settings.projector.imageMinTokens);
}

std::optional<Error> readImageMaxTokens(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed) {
    return readTokens(spelling, values, Setting::ImageMaxTokens, parsed.settings.projector.imageMaxTokens);
}

std::vector<FlagValues> writeProjector(const ServerSettings& s) {
    return s.projector.path.empty() ? std::vector<FlagValues>{} : once(s.projector.path);
}

std::vector<FlagValues> writeNoOffload(const ServerSettings& s) {
    return s.projector.offload ? std::vector<FlagValues>{} : std::vector<FlagValues>{FlagValues{}};
}

std::vector<FlagValues> writeImageMinTokens(const ServerSettings& s) {
    return s.projector.imageMinTokens ? once(std::to_string(*s.projector.imageMinTokens))
                                      : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeImageMaxTokens(const ServerSettings& s) {
    return s.projector.imageMaxTokens ? once(std::to_string(*s.projector.imageMaxTokens))
                                      : std::vector<FlagValues>{};
}

} // namespace llamafit::projectorflags

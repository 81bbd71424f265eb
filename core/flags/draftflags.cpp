// The draft-model flags; see draftflags.h. Value rules: llama.cpp common/arg.cpp (-ngld takes
// what -ngl takes; -ctkd/-ctvd the cache types -ctk/-ctv take).

#include "core/flags/draftflags.h"

#include "core/flags/flagvalues.h"
#include "core/flags/serverargs.h"

namespace llamafit::draftflags {

namespace {

Error withSetting(Error error, Setting setting, std::string_view spelling) {
    error.settings = {setting};
    error.flag = std::string(spelling);
    return error;
}

std::optional<Error> readCacheTypeFor(std::string_view spelling, std::string_view value, GgmlType& out,
                                      Setting setting) {
    if (std::optional<Error> error = readCacheType(spelling, value, out)) {
        return withSetting(std::move(*error), setting, spelling);
    }
    return std::nullopt;
}

std::vector<FlagValues> cacheTypeUnlessDefault(GgmlType type) {
    if (type == DraftModelSettings{}.cacheTypeK) {
        return {};
    }
    return {FlagValues{std::string(ggmlTypeName(type))}};
}

} // namespace

std::optional<Error> readDraftModel(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed) {
    if (values.front().empty()) {
        return withSetting(badValue(spelling, values.front(), "a GGUF file"), Setting::DraftModel, spelling);
    }
    parsed.settings.draftModel.path = values.front();
    return std::nullopt;
}

std::optional<Error> readDraftGpuLayers(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed) {
    if (std::optional<Error> error =
            readGpuLayers(spelling, values.front(), parsed.settings.draftModel.gpuLayers)) {
        return withSetting(std::move(*error), Setting::DraftGpuLayers, spelling);
    }
    return std::nullopt;
}

std::optional<Error> readDraftCacheTypeK(std::string_view spelling, const FlagValues& values,
                                         ParsedServerArgs& parsed) {
    return readCacheTypeFor(spelling, values.front(), parsed.settings.draftModel.cacheTypeK,
                            Setting::DraftCacheTypeK);
}

std::optional<Error> readDraftCacheTypeV(std::string_view spelling, const FlagValues& values,
                                         ParsedServerArgs& parsed) {
    return readCacheTypeFor(spelling, values.front(), parsed.settings.draftModel.cacheTypeV,
                            Setting::DraftCacheTypeV);
}

std::vector<FlagValues> writeDraftModel(const ServerSettings& settings) {
    if (settings.draftModel.path.empty()) {
        return {};
    }
    return {FlagValues{settings.draftModel.path}};
}

std::vector<FlagValues> writeDraftGpuLayers(const ServerSettings& settings) {
    if (!settings.draftModel.gpuLayers) {
        return {};
    }
    return {FlagValues{settings.draftModel.gpuLayers->text()}};
}

std::vector<FlagValues> writeDraftCacheTypeK(const ServerSettings& settings) {
    return cacheTypeUnlessDefault(settings.draftModel.cacheTypeK);
}

std::vector<FlagValues> writeDraftCacheTypeV(const ServerSettings& settings) {
    return cacheTypeUnlessDefault(settings.draftModel.cacheTypeV);
}

} // namespace llamafit::draftflags

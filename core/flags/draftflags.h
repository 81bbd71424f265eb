#pragma once
// Readers and writers of the draft-model rows of the flag table (flagtable.cpp): -md, -ngld,
// -ctkd and -ctvd into ServerSettings::draftModel (core/sizing/draftmodel.h) and back. Internal
// to core/flags; pure functions.

#include "core/flags/flagtable.h"

#include <string_view>

namespace llamafit::draftflags {

std::optional<Error> readDraftModel(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed);
std::optional<Error> readDraftGpuLayers(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed);
std::optional<Error> readDraftCacheTypeK(std::string_view spelling, const FlagValues& values,
                                         ParsedServerArgs& parsed);
std::optional<Error> readDraftCacheTypeV(std::string_view spelling, const FlagValues& values,
                                         ParsedServerArgs& parsed);

std::vector<FlagValues> writeDraftModel(const ServerSettings& settings);
std::vector<FlagValues> writeDraftGpuLayers(const ServerSettings& settings);
std::vector<FlagValues> writeDraftCacheTypeK(const ServerSettings& settings);
std::vector<FlagValues> writeDraftCacheTypeV(const ServerSettings& settings);

} // namespace llamafit::draftflags

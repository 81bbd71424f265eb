#pragma once
// Readers and writers of the vision projector rows of the flag table (flagtable.cpp): -mm/--mmproj
// FILE, --mmproj-offload / --no-mmproj-offload and --image-min-tokens / --image-max-tokens N, into
// ServerSettings::projector (core/sizing/projectorsetting.h). Internal to core/flags; pure functions.

#include "core/flags/flagtable.h"

#include <string_view>

namespace llamafit::projectorflags {

std::optional<Error> readProjector(std::string_view spelling, const FlagValues& values,
                                   ParsedServerArgs& parsed);
std::optional<Error> readOffload(std::string_view spelling, const FlagValues& values,
                                 ParsedServerArgs& parsed);
std::optional<Error> readNoOffload(std::string_view spelling, const FlagValues& values,
                                   ParsedServerArgs& parsed);
std::optional<Error> readImageMinTokens(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed);
std::optional<Error> readImageMaxTokens(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed);

std::vector<FlagValues> writeProjector(const ServerSettings& settings);
std::vector<FlagValues> writeNoOffload(const ServerSettings& settings);
std::vector<FlagValues> writeImageMinTokens(const ServerSettings& settings);
std::vector<FlagValues> writeImageMaxTokens(const ServerSettings& settings);

} // namespace llamafit::projectorflags

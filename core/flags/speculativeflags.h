#pragma once
// Readers and writers of the speculative-decoding rows of the flag table (flagtable.cpp):
// --spec-type, --spec-draft-n-max, --spec-draft-n-ubatch into ServerSettings::speculative
// (core/sizing/speculative.h) and back. Internal to core/flags; pure functions.

#include "core/flags/flagtable.h"

#include <string_view>

namespace llamafit::speculativeflags {

std::optional<Error> readSpecType(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed);
std::optional<Error> readDraftMax(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed);
std::optional<Error> readDraftUbatch(std::string_view spelling, const FlagValues& values,
                                     ParsedServerArgs& parsed);

std::vector<FlagValues> writeSpecType(const ServerSettings& settings);
std::vector<FlagValues> writeDraftMax(const ServerSettings& settings);
std::vector<FlagValues> writeDraftUbatch(const ServerSettings& settings);

} // namespace llamafit::speculativeflags

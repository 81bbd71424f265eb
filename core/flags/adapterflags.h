#pragma once
// Readers and the writer of the LoRA rows of the flag table (flagtable.cpp): --lora FILE[,FILE...]
// (scale 1) and --lora-scaled FILE:SCALE[,FILE:SCALE...] into ServerSettings::loraAdapters, in
// order; written back as one --lora-scaled. Internal to core/flags; pure functions.

#include "core/flags/flagtable.h"

#include <string_view>

namespace llamafit::adapterflags {

std::optional<Error> readLora(std::string_view spelling, const FlagValues& values, ParsedServerArgs& parsed);
std::optional<Error> readLoraScaled(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed);
std::vector<FlagValues> writeLoraScaled(const ServerSettings& settings);

} // namespace llamafit::adapterflags

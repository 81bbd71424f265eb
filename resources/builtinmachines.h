#pragma once
// The built-in machine profiles as compiled-in text: resources/machines/*.json, embedded by
// resources/embedtexts.cmake at build time. Read only by core/machine/builtinmachines.cpp,
// which parses them into Machine values (builtinMachines()).

#include "resources/builtincards.h"

#include <span>

namespace llamafit::resources {

std::span<const EmbeddedText> builtinMachineTexts();

} // namespace llamafit::resources

#pragma once
// KvPair: a K cache type and a V cache type (-ctk, -ctv) as one value, and the default set of
// pairs that `llamafit-cli fit`/`sweep` and the GUI's context sweep chart compare, in one order:
// most precise first, the common mixed pair last. Pure value type; any thread.

#include "core/gguf/ggmltype.h"

#include <string>
#include <utility>
#include <vector>

namespace llamafit {

using KvPair = std::pair<GgmlType, GgmlType>; // K type, V type

// f16/f16, q8_0/q8_0, q4_0/q4_0 and the common mixed pair f16/q8_0.
std::vector<KvPair> defaultKvPairs();

// defaultKvPairs(), then `current` when it is none of them (the pair the settings use).
std::vector<KvPair> defaultKvPairsWith(const KvPair& current);

std::string kvPairName(const KvPair& pair); // "q8_0/q8_0"

} // namespace llamafit

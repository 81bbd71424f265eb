#pragma once
// K/V cache type pairs for `fit` and `sweep`: the --types option ("f16,q8_0,f16/q8_0": a
// single type means K = V, "K/V" a mixed pair) and the default set.

#include "core/common/result.h"
#include "core/gguf/ggmltype.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llamafit {

using KvPair = std::pair<GgmlType, GgmlType>; // K, V

// f16/f16, q8_0/q8_0, q4_0/q4_0 and the common mixed pair f16/q8_0.
std::vector<KvPair> defaultKvPairs();

// Error code cli.bad-value (names the option and the type); types must be llama-server cache types.
Result<std::vector<KvPair>> parseKvPairs(std::string_view option, std::string_view text);

std::string kvPairName(const KvPair& pair); // "q8_0/q8_0"

} // namespace llamafit

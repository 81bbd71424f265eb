#pragma once
// The --types option of `fit` and `sweep` ("f16,q8_0,f16/q8_0": a single type means K = V, "K/V"
// a mixed pair). The pair type and the default set are the core's (core/sizing/kvpairs.h).

#include "core/common/result.h"
#include "core/gguf/ggmltype.h"
#include "core/sizing/kvpairs.h"

#include <string_view>
#include <vector>

namespace llamafit {

// Error code cli.bad-value (names the option and the type); types must be llama-server cache types.
Result<std::vector<KvPair>> parseKvPairs(std::string_view option, std::string_view text);

} // namespace llamafit

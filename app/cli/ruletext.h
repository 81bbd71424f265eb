#pragma once
// The CLI's English wording of the rule behind each number (the GUI words the same values
// with tr(), ui/charts/ruletext.h): the "rule" column of `estimate --explain` and the JSON
// "rule" fields, and the label of each term of `plan`'s pools.

#include "core/machine/poolusage.h"
#include "core/sizing/sizerule.h"

#include <string>

namespace llamafit {

// "SWA KV cache: 4096 cells x 1 streams, K f16 + V f16; src/llama-kv-cache.cpp"
std::string ruleText(const SizeRule& rule);

// "OS and other programs", "Vulkan0 model weights", "prompt cache (--cache-ram 8192)"
std::string poolTermLabel(const PoolTerm& term);

} // namespace llamafit

#pragma once
// The GUI's wording of the rule behind each number (core/sizing/sizerule.h), translated with
// tr() (context "SizeRule"): the memory chart's hover text per buffer and per pool term. The
// llama.cpp source path is appended untranslated. The CLI words the same values in English
// (app/cli/ruletext.h).

#include "core/machine/poolusage.h"
#include "core/sizing/sizerule.h"

#include <QString>

namespace llamafit {

// "SWA KV cache: 4096 cells x 1 streams, K f16 + V f16; src/llama-kv-cache.cpp", translated.
QString ruleText(const SizeRule& rule);

// "OS and other programs", "Vulkan0 model weights", "prompt cache (--cache-ram 8192)", translated.
QString poolTermLabel(const PoolTerm& term);

} // namespace llamafit

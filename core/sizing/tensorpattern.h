#pragma once
// A -ot / --override-tensor pattern compiled as llama.cpp compiles it (std::regex, ECMAScript,
// matched with std::regex_search: src/llama-model-loader.cpp), with two guards llama.cpp does
// not have:
//   - LlamaFit matches with libstdc++'s polynomial-time executor where available, so no
//     pattern can hang an estimate, a sweep or a slider drag;
//   - a pattern that nests unbounded repetition ("(.*.*)*", "(a+)+") is refused: llama-server's
//     backtracking matcher takes exponential time on it and would hang while loading.
//
// Error codes (both name Setting::TensorOverrides):
//   settings.bad-value               not a valid ECMAScript regex
//   settings.pattern-too-expensive   nested unbounded repetition

#include "core/common/result.h"

#include <regex>
#include <string>

namespace llamafit {

Result<std::regex> compileTensorPattern(const std::string& pattern);

// True when `pattern` repeats, without bound, a group that itself repeats without bound.
bool nestsUnboundedRepetition(const std::string& pattern);

} // namespace llamafit

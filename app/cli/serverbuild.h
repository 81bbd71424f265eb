#pragma once
// The llama.cpp build of a llama-server program, from its --version: what `--server PATH` makes
// the sizing commands size for (core/sizing/llamabuild.h) and what `launch` predicts with.
//
// Error codes: probe.not-executable, probe.failed (core/system/programoutput.h), probe.no-build
// (its --version names no build number).

#include "core/common/result.h"

#include <cstdint>
#include <string>

namespace llamafit {

Result<std::uint32_t> buildOfServer(const std::string& program);

} // namespace llamafit

#pragma once
// `llamafit-cli fit --as-llama-server` (and --as-llama-fit-params): llama.cpp's own --fit,
// replicated (core/sizing/fitreplica.h), printed the way llama-fit-params prints its result:
// "-c 116224 -ngl -1" on stdout, exit 0; when the fit gives up, llama.cpp's reason on stderr and
// exit 1. Bad input stays exit 2. Used by fitcommand.cpp only.

#include "app/cli/sizingcommand.h"
#include "core/sizing/fitreplica.h"

namespace llamafit {

inline constexpr int kExitFitFailed = 1; // as llama-fit-params: "failed to fit CLI arguments to free memory"

int runFitReplica(const SizingRun& run, FitProgram program);

} // namespace llamafit

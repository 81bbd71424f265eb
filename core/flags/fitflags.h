#pragma once
// readFitParams(): llama.cpp's own --fit flags (-fit, -fitt, -fitc) from a parsed llama-server
// command line, for the fit replica (core/sizing/fitreplica.h). The flags stay pass-through (a
// launch passes them on as typed); this is where their values are read. Pure.
//
// Error codes: args.bad-value (names the flag and the value).

#include "core/common/result.h"
#include "core/flags/serverargs.h"
#include "core/sizing/fitreplica.h"

namespace llamafit {

// common/arg.cpp: -fit on|off; -fitt MiB[,MiB...] (split on ',' or '/'; one value is every
// device); -fitc N. A -c 0 asks for the full training context, which the fit then never shrinks,
// unless a later -fitc sets a minimum again (the last of the two wins, as in llama.cpp).
Result<FitParams> readFitParams(const ParsedServerArgs& parsed);

} // namespace llamafit

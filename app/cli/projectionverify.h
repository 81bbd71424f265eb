#pragma once
// `llamafit-cli estimate --verify`: runs the installed llama.cpp's own projection for the same
// model and flags (llama-fit-params --fit-print on -lv 4: a dry run, nothing is allocated) and
// prints, per device, "llama.cpp bNNNN projects X MiB, LlamaFit Y MiB", flagging a difference
// over 1 % (core/server/projectioncheck.h). The tool: --llama-fit-params PATH, else
// $LLAMAFIT_LLAMA_FIT_PARAMS, else llama-fit-params on the PATH. Used by estimatecommand.cpp.
//
// Error codes: verify.no-tool, verify.needs-file (a card has no file to measure),
// verify.tool-failed (the tool's exit status and the end of its log).

#include "app/cli/sizingcommand.h"

namespace llamafit {

// Prints the comparison to run.io.out; returns kExitOk, or reports the error and returns kExitError.
int verifyProjection(const SizingRun& run);

} // namespace llamafit

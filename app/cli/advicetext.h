#pragma once
// The CLI's English wording of the core's advice values (the GUI words the same values with
// tr()): the sentence under `llamafit-cli plan`'s BIOS split table and its JSON "reason", and
// why `llamafit-cli fit` found no context or K/V pair (its "reason" column and JSON field).

#include "core/machine/biossplitadvisor.h"
#include "core/sizing/solvers.h"

#include <string>

namespace llamafit {

// "32 GiB VRAM / 32 GiB system leaves the most system RAM (...) while the GPU side keeps ...",
// or what to change when no offered split fits with margin.
std::string biosSplitReason(const SplitAdvice& advice);

// "does not fit even at 256 tokens: CPU needs 9000.00 MiB of 1024.00 MiB", llama.cpp's refusal
// as the estimator words it, ...; empty when the fit fits.
std::string fitFailureReason(const ContextFit& fit);

} // namespace llamafit

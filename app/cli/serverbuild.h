#pragma once
// The llama.cpp build to size for when a llama-server program will run the model: the build its
// --version names. What `--server PATH` makes the sizing commands size for
// (core/sizing/llamabuild.h) and what `launch` predicts with.

#include <cstdint>
#include <ostream>
#include <string>

namespace llamafit {

// The build `program`'s --version names; where it does not start, does not answer or names no
// build number, kReferenceLlamaBuild, with a note on `notes` that says why.
std::uint32_t buildToSizeFor(const std::string& program, std::ostream& notes);

} // namespace llamafit

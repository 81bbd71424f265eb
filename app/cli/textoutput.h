#pragma once
// The human-readable output of `estimate` and `inspect`: MiB with two decimals like
// llama.cpp's own log lines, so a number can be compared with llama-server -lv 4 by eye.
// For scripts use --json (jsonoutput.h); this text may change.

#include "app/cli/modelsource.h"
#include "core/flags/serverargs.h"
#include "core/sizing/memoryestimate.h"

#include <iosfwd>
#include <string>

namespace llamafit {

// "Qwen3.5-35B-A3B Q6_K (card qwen3.5-35b-a3b-q6_k, qwen35moe)"
std::string modelLine(const LoadedModel& model);

void printEstimateText(std::ostream& out, const LoadedModel& model, const ParsedServerArgs& args,
                       const MemoryEstimate& estimate);
void printInspectText(std::ostream& out, const LoadedModel& model);
// The "Notes", "Not modelled" and "Flags not affecting memory" lists shared by estimate/fit/sweep.
void printFlagLists(std::ostream& out, const ParsedServerArgs& args);

} // namespace llamafit

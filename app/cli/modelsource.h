#pragma once
// The CLI's sizing request: the llama-server flags parsed, the model of -m loaded
// (core/model/modelsource.h: a GGUF path or a built-in card id), and the files the flags load
// besides it: the --lora adapters' and the -md draft model's headers.
//
// Error codes: those of parseServerArgs, loadModel (for -m and -md) and interpretLoraAdapter.

#include "core/common/result.h"
#include "core/flags/serverargs.h"
#include "core/model/modelsource.h"
#include "core/sizing/estimator.h"

#include <string>
#include <vector>

namespace llamafit {

// What estimate/fit/sweep start from: the llama-server flags parsed, and the model of -m.
struct SizingRequest {
    LoadedModel model;
    ParsedServerArgs args;
    CompanionModels companions;
};

Result<SizingRequest> loadSizingRequest(const std::vector<std::string>& serverArgs);

} // namespace llamafit

#pragma once
// The CLI's sizing request: the llama-server flags parsed and the model of -m loaded
// (core/model/modelsource.h: a GGUF path or a built-in card id).
//
// Error codes: those of parseServerArgs and loadModel.

#include "core/common/result.h"
#include "core/flags/serverargs.h"
#include "core/model/modelsource.h"

#include <string>
#include <vector>

namespace llamafit {

// What estimate/fit/sweep start from: the llama-server flags parsed, and the model of -m.
struct SizingRequest {
    LoadedModel model;
    ParsedServerArgs args;
};

Result<SizingRequest> loadSizingRequest(const std::vector<std::string>& serverArgs);

} // namespace llamafit

#pragma once
// Turns the CLI's -m argument into a ModelInfo: a GGUF path (any part of a split model),
// or, when no such file exists, the id of a built-in model card (`llamafit-cli cards`).
// Both go through interpretModel(), so a card is sized exactly like its file would be.
//
// Error codes: cli.missing-model (no -m), model.not-found (neither a file nor a card id),
// plus the gguf.* / model.* / spec.* codes of the reader, interpreter and cards.

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/serverargs.h"

#include <string>
#include <vector>

namespace llamafit {

struct LoadedModel {
    ModelInfo info;
    std::string argument;    // what the user typed after -m
    std::string path;        // the GGUF path, empty for a card
    std::string cardId;      // the card id, empty for a file
    std::string displayName; // card display name, or general.name / file name
    std::string source;      // card: where its values come from; file: "file"
};

Result<LoadedModel> loadModel(const std::string& pathOrCardId);

// What estimate/fit/sweep start from: the llama-server flags parsed, and the model of -m.
struct SizingRequest {
    LoadedModel model;
    ParsedServerArgs args;
};

Result<SizingRequest> loadSizingRequest(const std::vector<std::string>& serverArgs);

} // namespace llamafit

#pragma once
// loadModel(): a GGUF path (any part of a split model) or, when no such file exists, the id of
// a built-in model card, turned into a ModelInfo. Both go through interpretModel(), so a card
// is sized exactly like its file would be. Used by llamafit-cli's -m and by the GUI's model
// picker. Reads the file's header only (the tensor data is never touched).
//
// Error codes: cli.missing-model (empty argument), model.not-found (neither a file nor a
// card id), plus the gguf.* / model.* / spec.* codes of the reader, interpreter, the loader's
// checks (loaderchecks.h; files only) and cards.

#include "core/common/result.h"
#include "core/model/modelinfo.h"

#include <string>

namespace llamafit {

struct LoadedModel {
    ModelInfo info;
    std::string argument;    // what was asked for: a path or a card id
    std::string path;        // the GGUF path, empty for a card
    std::string cardId;      // the card id, empty for a file
    std::string displayName; // card display name, or general.name / file name
    std::string source;      // card: where its values come from; file: "file"
    std::string hubRepo;     // card: its Hugging Face repo and quant (ModelSpec::hubRepo), if known
    std::string hubQuant;
};

Result<LoadedModel> loadModel(const std::string& pathOrCardId);

} // namespace llamafit

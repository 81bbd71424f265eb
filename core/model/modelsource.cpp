// A GGUF path or a built-in card id -> ModelInfo; see modelsource.h.

#include "core/model/modelsource.h"

#include "core/common/utf8path.h"
#include "core/gguf/ggufreader.h"
#include "core/model/loaderchecks.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"

#include <filesystem>
#include <system_error>

namespace llamafit {

Result<LoadedModel> loadModel(const std::string& pathOrCardId) {
    if (pathOrCardId.empty()) {
        return makeError("cli.missing-model",
                         "no model: pass -m with a GGUF path or a card id (see 'cards')");
    }
    LoadedModel loaded;
    loaded.argument = pathOrCardId;

    std::error_code ec;
    // A file on disk wins over a card of the same name: the user pointed at real bytes.
    if (std::filesystem::exists(pathFromUtf8(pathOrCardId), ec)) {
        Result<GgufFile> file = readGgufModel(pathOrCardId);
        if (!file) {
            return file.error();
        }
        // What llama.cpp's loader would refuse is refused here, with its reason.
        Result<ModelInfo> info = interpretLoadableModel(*file);
        if (!info) {
            return info.error();
        }
        loaded.info = std::move(*info);
        loaded.path = pathOrCardId;
        loaded.displayName =
            loaded.info.name.empty() ? utf8FromPath(pathFromUtf8(pathOrCardId).filename()) : loaded.info.name;
        loaded.source = "file";
        return loaded;
    }

    Result<ModelSpec> card = findBuiltinModelCard(pathOrCardId);
    if (!card) {
        return makeError("model.not-found",
                         "no model file '" + pathOrCardId +
                             "' and no built-in card with that id ('llamafit-cli cards' lists them)");
    }
    Result<ModelInfo> info = interpretModel(card->file);
    if (!info) {
        return info.error();
    }
    loaded.info = std::move(*info);
    loaded.cardId = card->id;
    loaded.displayName = card->displayName;
    loaded.source = card->source;
    loaded.hubRepo = card->hubRepo;
    loaded.hubQuant = card->hubQuant;
    return loaded;
}

} // namespace llamafit

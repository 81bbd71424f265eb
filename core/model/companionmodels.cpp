// Reading the files a command loads besides its model; see companionmodels.h.

#include "core/model/companionmodels.h"

#include "core/gguf/ggufreader.h"
#include "core/model/modelsource.h"

namespace llamafit {

Result<CompanionModels> loadCompanionModels(const std::vector<std::string>& loraAdapterPaths,
                                            const std::string& draftModelPath) {
    CompanionModels companions;
    for (const std::string& path : loraAdapterPaths) {
        auto file = readGgufModel(path);
        if (!file) {
            Error error = file.error();
            error.settings = {Setting::LoraAdapters};
            return error;
        }
        auto adapter = interpretLoraAdapter(*file, path);
        if (!adapter) {
            return adapter.error();
        }
        companions.loraAdapters.push_back(std::move(*adapter));
    }
    if (!draftModelPath.empty()) {
        Result<LoadedModel> draft = loadModel(draftModelPath);
        if (!draft) {
            Error error = draft.error();
            error.message = "draft model (-md): " + error.message;
            error.settings = {Setting::DraftModel};
            return error;
        }
        companions.draftModel = std::move(draft->info);
    }
    return companions;
}

} // namespace llamafit

// Reading the files a command loads besides its model; see companionmodels.h.

#include "core/model/companionmodels.h"

#include "core/gguf/ggufreader.h"
#include "core/model/modelsource.h"
#include "core/sizing/serversettings.h"

namespace llamafit {

Result<CompanionModels> loadCompanionModels(const std::vector<std::string>& loraAdapterPaths,
                                            const std::string& draftModelPath,
                                            const std::string& projectorPath) {
    CompanionModels companions;
    Result<std::vector<LoraAdapterInfo>> adapters = readLoraAdapters(loraAdapterPaths);
    if (!adapters) {
        Error error = adapters.error();
        error.settings = {Setting::LoraAdapters};
        return error;
    }
    companions.loraAdapters = std::move(*adapters);
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
    if (!projectorPath.empty()) {
        auto file = readGgufModel(projectorPath);
        auto projector =
            file ? interpretProjector(*file, projectorPath) : Result<ProjectorInfo>(file.error());
        if (!projector) {
            Error error = projector.error();
            error.settings = {Setting::Projector};
            return error;
        }
        companions.projector = std::move(*projector);
    }
    return companions;
}

Result<CompanionModels> loadCompanionModels(const ServerSettings& settings) {
    std::vector<std::string> adapterPaths;
    for (const LoraAdapterSetting& adapter : settings.loraAdapters) {
        adapterPaths.push_back(adapter.path);
    }
    return loadCompanionModels(adapterPaths, settings.draftModel.path, settings.projector.path);
}

} // namespace llamafit

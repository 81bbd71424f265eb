// -m PATH | CARD-ID and the llama-server flags -> SizingRequest; see modelsource.h.

#include "app/cli/modelsource.h"

namespace llamafit {

Result<SizingRequest> loadSizingRequest(const std::vector<std::string>& serverArgs) {
    Result<ParsedServerArgs> args = parseServerArgs(serverArgs);
    if (!args) {
        return args.error();
    }
    Result<LoadedModel> model = loadModel(args->model);
    if (!model) {
        return model.error();
    }
    Result<CompanionModels> companions = loadCompanionModels(args->settings);
    if (!companions) {
        return companions.error();
    }
    return SizingRequest{std::move(*model), std::move(*args), std::move(*companions)};
}

} // namespace llamafit

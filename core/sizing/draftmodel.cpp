// The draft model's context settings; see draftmodel.h.

#include "core/sizing/draftmodel.h"

#include "core/sizing/serversettings.h"

namespace llamafit {

bool loadsDraftModel(const ServerSettings& settings) {
    return !settings.draftModel.path.empty();
}

ServerSettings draftContextSettings(const ServerSettings& main) {
    ServerSettings draft = main;
    draft.cacheTypeK = main.draftModel.cacheTypeK;
    draft.cacheTypeV = main.draftModel.cacheTypeV;
    draft.gpuLayers = main.draftModel.gpuLayers;
    if (main.speculative.draftUbatch > 0) {
        draft.ubatchTokens = main.speculative.draftUbatch;
    }
    // The weight placement rules that name the main model's tensors have their own draft flags
    // (-otd, -cmoed, -ncmoed), which are not modelled: the draft keeps llama.cpp's defaults.
    draft.tensorOverrides.clear();
    draft.cpuMoe = false;
    draft.cpuMoeLayers = 0;
    draft.speculative = {};
    draft.loraAdapters.clear();
    draft.draftModel = {};
    draft.projector = {}; // the projector belongs to the target (one clip context per server)
    // Host-RAM terms belong to the server, not to a context: counted once, with the main model.
    draft.cacheRamMiB = 0;
    draft.contextCheckpoints = 0;
    return draft;
}

} // namespace llamafit

#pragma once
// CompanionModels: the files a llama-server command loads besides its model -- the --lora
// adapters, the -md draft model (core/sizing/draftmodel.h) and the --mmproj vision projector
// (core/sizing/projectorbuffers.h) -- read for their headers and sized by estimateMemory() with
// the model. Value type; loadCompanionModels() reads the files.
//
// Error codes: those of readGgufModel, interpretLoraAdapter, loadModel and interpretProjector,
// naming the setting (LoraAdapters, DraftModel or Projector); the draft's message starts with
// "draft model (-md): ".

#include "core/common/result.h"
#include "core/model/loraadapter.h"
#include "core/model/modelinfo.h"
#include "core/model/projectorinfo.h"

#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct CompanionModels {
    std::vector<LoraAdapterInfo> loraAdapters; // the adapters' files, in the order given
    std::optional<ModelInfo> draftModel;       // the -md model
    std::optional<ProjectorInfo> projector;    // the --mmproj file
    bool operator==(const CompanionModels&) const = default;
};

// Reads each adapter file, the draft model (a GGUF path or a built-in card id) and the projector
// (none when its path is empty), headers only.
Result<CompanionModels> loadCompanionModels(const std::vector<std::string>& loraAdapterPaths,
                                            const std::string& draftModelPath,
                                            const std::string& projectorPath);

struct ServerSettings;
// The same for the files llama-server flags name: --lora / --lora-scaled, -md and --mmproj.
Result<CompanionModels> loadCompanionModels(const ServerSettings& settings);

} // namespace llamafit

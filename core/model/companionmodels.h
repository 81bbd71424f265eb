#pragma once
// CompanionModels: the files a llama-server command loads besides its model -- the --lora
// adapters and the -md draft model (core/sizing/draftmodel.h) -- read for their headers and
// sized by estimateMemory() with the model. Value type; loadCompanionModels() reads the files.
//
// Error codes: those of readGgufModel, interpretLoraAdapter and loadModel, naming the setting
// (LoraAdapters or DraftModel); the draft's message starts with "draft model (-md): ".

#include "core/common/result.h"
#include "core/model/loraadapter.h"
#include "core/model/modelinfo.h"

#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct CompanionModels {
    std::vector<LoraAdapterInfo> loraAdapters; // the adapters' files, in the order given
    std::optional<ModelInfo> draftModel;       // the -md model
    bool operator==(const CompanionModels&) const = default;
};

// Reads each adapter file and the draft model (a GGUF path or a built-in card id; none when
// empty), headers only.
Result<CompanionModels> loadCompanionModels(const std::vector<std::string>& loraAdapterPaths,
                                            const std::string& draftModelPath);

} // namespace llamafit

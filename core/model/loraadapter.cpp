// LoRA adapter GGUFs; see loraadapter.h for the rules and their llama.cpp source.
#include "core/model/loraadapter.h"

#include "core/common/units.h"
#include "core/gguf/ggufreader.h"
#include "core/model/tensorroles.h"

#include <utility>

namespace llamafit {

std::uint64_t LoraAdapterInfo::weightBytes() const {
    std::uint64_t bytes = 0;
    for (const TensorSummary& tensor : tensors) {
        bytes += padTo(tensor.bytes, alignment);
    }
    return bytes;
}

Result<LoraAdapterInfo> interpretLoraAdapter(const GgufFile& file, const std::string& path) {
    const std::string type = file.getString("general.type").value_or("");
    const std::string adapterType = file.getString("adapter.type").value_or("");
    if (type != "adapter" || adapterType != "lora") {
        return makeError("adapter.not-lora", path + " is not a LoRA adapter (general.type '" + type +
                                                 "', adapter.type '" + adapterType +
                                                 "'; llama.cpp expects 'adapter' and 'lora')");
    }
    LoraAdapterInfo adapter;
    adapter.path = path;
    adapter.architecture = file.getString("general.architecture").value_or("");
    adapter.alignment = file.alignment;
    for (const GgufTensorInfo& tensor : file.tensors) {
        if (!tensor.name.ends_with(".lora_a") && !tensor.name.ends_with(".lora_b")) {
            return makeError("adapter.bad-tensor", path + ": tensor '" + tensor.name +
                                                       "' is neither a .lora_a nor a .lora_b tensor");
        }
        adapter.tensors.push_back(summarizeTensor(tensor, adapter.architecture));
    }
    return adapter;
}

Result<std::vector<LoraAdapterInfo>> readLoraAdapters(const std::vector<std::string>& paths) {
    std::vector<LoraAdapterInfo> adapters;
    for (const std::string& path : paths) {
        const Result<GgufFile> file = readGgufModel(path);
        if (!file) {
            return file.error();
        }
        Result<LoraAdapterInfo> adapter = interpretLoraAdapter(*file, path);
        if (!adapter) {
            return adapter.error();
        }
        adapters.push_back(std::move(*adapter));
    }
    return adapters;
}

Result<bool> checkLoraAdapter(const ModelInfo& model, const LoraAdapterInfo& adapter) {
    if (adapter.architecture != model.architecture) {
        return makeError("adapter.arch-mismatch",
                         adapter.path + " is a LoRA adapter for '" + adapter.architecture +
                             "', the model is '" + model.architecture +
                             "' (llama.cpp: \"model arch and LoRA arch mismatch\")",
                         {Setting::LoraAdapters});
    }
    return true;
}

} // namespace llamafit

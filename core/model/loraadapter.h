#pragma once
// LoraAdapterInfo: a LoRA adapter GGUF (--lora / --lora-scaled) as the sizing core needs it: its
// architecture and its tensors (lora_a / lora_b pairs per adapted weight, with the block each
// belongs to). Read from the file's header only, like ModelInfo. Used by the estimate
// (core/sizing/lorabuffers.h) and by the CLI and the GUI, which read the files. Value type; bytes.
//
// Source: llama.cpp src/llama-adapter.cpp llama_adapter_lora_init_impl: general.type must be
// "adapter" and adapter.type "lora"; general.architecture must equal the model's ("model arch
// and LoRA arch mismatch"); every tensor is "<base weight>.lora_a" or ".lora_b".
//
// Error codes: adapter.not-lora (general.type / adapter.type say otherwise), adapter.bad-tensor
// (a tensor that is neither lora_a nor lora_b), adapter.arch-mismatch (checkLoraAdapter).

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/model/modelinfo.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

struct LoraAdapterInfo {
    std::string path;
    std::string architecture;
    std::vector<TensorSummary> tensors; // layer = the adapted weight's block, -1 outside blocks
    std::uint64_t alignment = 32;       // general.alignment: each tensor's data is padded to it
    std::uint64_t weightBytes() const;  // tensor data with each tensor padded to the alignment
    bool operator==(const LoraAdapterInfo&) const = default;
};

Result<LoraAdapterInfo> interpretLoraAdapter(const GgufFile& file, const std::string& path);

// The adapters in `paths`, in order, each read from its file's header (readGgufModel) and
// interpreted; the first file that cannot be read or is no LoRA adapter gives the error. Used by
// the CLI and by the GUI's extra flags, which name the files with --lora / --lora-scaled.
Result<std::vector<LoraAdapterInfo>> readLoraAdapters(const std::vector<std::string>& paths);

// adapter.arch-mismatch when llama.cpp would refuse the adapter for this model.
Result<bool> checkLoraAdapter(const ModelInfo& model, const LoraAdapterInfo& adapter);

} // namespace llamafit

#pragma once
// Models and machines the settings tests share: a model whose attention head dim (80, as in
// phi-2) is not a multiple of the 32-value block of q8_0/q4_0, a model with a NextN (MTP) block,
// and sessions on built-in machines.
// Test support only.

#include "core/gguf/ggufvalue.h"
#include "core/machine/machineprofile.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelsource.h"
#include "tests/support/modelfiles.h"

#include <string>
#include <string_view>

namespace llamafit::test {

// The Llama-3.2-1B shape (tests/data/shapes/llama.json) with key_length and value_length 80:
// llama.cpp src/llama-model.cpp load_hparams reads the head dims from these keys.
inline Result<LoadedModel> headDim80Model() {
    Result<ModelSpec> spec = loadShape("llama");
    if (!spec.ok()) {
        return spec.error();
    }
    spec->file.metadata.emplace_back("llama.attention.key_length", GgufValue::fromUint(80));
    spec->file.metadata.emplace_back("llama.attention.value_length", GgufValue::fromUint(80));
    spec->file.rebuildIndex();
    Result<ModelInfo> info = interpretModel(spec->file);
    if (!info.ok()) {
        return info.error();
    }
    LoadedModel model;
    model.info = std::move(*info);
    model.argument = "llama-head-dim-80";
    model.displayName = "Llama shape, head dim 80";
    model.source = "tests/data/shapes/llama.json with key_length/value_length 80";
    return model;
}

// The sparse Qwen3.5-35B-A3B shape with its NextN (MTP) block (tests/data/shapes/mtp), in memory.
inline Result<LoadedModel> mtpShapeModel() {
    Result<ModelSpec> spec = loadModelSpecFile(shapesDirectory() + "/mtp/qwen35moe-mtp.json");
    if (!spec.ok()) {
        return spec.error();
    }
    Result<GgufFile> file = ggufFileForSpec(*spec);
    if (!file.ok()) {
        return file.error();
    }
    Result<ModelInfo> info = interpretModel(*file);
    if (!info.ok()) {
        return info.error();
    }
    LoadedModel model;
    model.info = std::move(*info);
    model.argument = "qwen35moe-mtp";
    model.displayName = "Qwen3.5-35B-A3B shape with its NextN block";
    model.source = "tests/data/shapes/mtp/qwen35moe-mtp.json";
    return model;
}

inline Machine builtinMachine(std::string_view id) {
    Result<Machine> machine = findBuiltinMachine(id);
    return machine.ok() ? *machine : Machine{};
}

} // namespace llamafit::test

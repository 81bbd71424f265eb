#pragma once
// The seed configuration shared by the machine tests: Qwen3.5-35B-A3B Q6_K (built-in card) at
// -c 65536 -ctk q8_0 -ctv q8_0 with 4 auto slots, on the GMKtec EVO-X2 profile (64 GB, BIOS
// 32/32, Windows, Vulkan) -- seed article 000's final set-up.

#include "core/machine/machineprofile.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"
#include "core/sizing/estimator.h"

#include <gtest/gtest.h>

namespace llamafit::test {

inline ModelInfo cardModel(std::string_view id) {
    Result<ModelSpec> card = findBuiltinModelCard(id);
    EXPECT_TRUE(card.ok()) << id;
    Result<ModelInfo> info = interpretModel(card->file);
    EXPECT_TRUE(info.ok()) << id;
    return *info;
}

inline ModelInfo seedModel() {
    return cardModel("qwen3.5-35b-a3b-q6_k");
}

inline ServerSettings seedSettings() {
    ServerSettings settings;
    settings.contextTokens = 65536;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    return settings;
}

inline Machine seedMachine() {
    Result<Machine> machine = findBuiltinMachine(defaultMachineId());
    EXPECT_TRUE(machine.ok());
    return *machine;
}

inline MemoryEstimate estimateOn(const ModelInfo& model, const ServerSettings& settings,
                                 const Machine& machine) {
    Result<MemoryEstimate> estimate = estimateMemory(model, settings, sizingGpus(machine));
    EXPECT_TRUE(estimate.ok()) << (estimate.ok() ? "" : estimate.error().message);
    return *estimate;
}

} // namespace llamafit::test

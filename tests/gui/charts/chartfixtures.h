#pragma once
// Shared set-up of the chart tests: sessions on the built-in machines (the seed's EVO-X2 at a
// 32/32 BIOS split and the 8 GB RTX 4060) with a built-in model card, settings built from a
// few values, and the core's own per-pool numbers the charts must show.

#include "core/machine/machineprofile.h"
#include "core/model/modelsource.h"
#include "ui/sizingsession.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace llamafit::testing {

inline Machine builtinMachine(std::string_view id) {
    Result<Machine> machine = findBuiltinMachine(id);
    EXPECT_TRUE(machine.ok()) << machine.error().message;
    return machine.ok() ? *machine : Machine{};
}

// A session on `machineId`, on the default card unless `cardId` names another.
inline std::unique_ptr<SizingSession> makeSession(std::string_view machineId,
                                                  const std::string& cardId = {}) {
    auto session = std::make_unique<SizingSession>(builtinMachine(machineId));
    if (!cardId.empty()) {
        Result<LoadedModel> model = loadModel(cardId);
        EXPECT_TRUE(model.ok()) << model.error().message;
        if (model.ok()) {
            session->setModel(std::move(*model));
        }
    }
    return session;
}

inline ServerSettings settingsWith(std::uint32_t contextTokens, GgmlType typeK = GgmlType::F16,
                                   GgmlType typeV = GgmlType::F16,
                                   std::optional<std::uint32_t> slotCount = {},
                                   std::optional<std::uint32_t> gpuLayers = {}) {
    ServerSettings settings;
    settings.contextTokens = contextTokens;
    settings.cacheTypeK = typeK;
    settings.cacheTypeV = typeV;
    settings.parallelSlots = slotCount;
    if (gpuLayers) {
        settings.gpuLayers = GpuLayers::count(*gpuLayers);
    }
    return settings;
}

// The bytes of `component` the core placed in pool `poolIndex`: the sum of its terms.
inline std::uint64_t poolComponentBytes(const PoolUsage& usage, std::size_t poolIndex, Component component) {
    std::uint64_t bytes = 0;
    for (const PoolTerm& term : usage.pools.at(poolIndex).terms) {
        if (term.component == component && !term.upTo && !term.reservation) {
            bytes += term.bytes;
        }
    }
    return bytes;
}

} // namespace llamafit::testing

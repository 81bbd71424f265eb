// Draft-model sizing (core/sizing/draftmodel.h): the draft context's settings, and how its
// buffers join the target's estimate. The exact figures are held against the real server by
// tests/unit/recorded (draft-b11669) and tests/integration/draftmodel_test.cpp.
#include "core/sizing/draftmodel.h"
#include "core/sizing/estimator.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ServerSettings withDraft() {
    ServerSettings settings;
    settings.contextTokens = 8192;
    settings.parallelSlots = 2;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    settings.ubatchTokens = 1024;
    settings.speculative.types = {SpeculativeType::DraftSimple};
    settings.draftModel.path = "draft.gguf";
    return settings;
}

std::uint64_t ownedBytes(const MemoryEstimate& estimate, BufferOwner owner, Component component) {
    std::uint64_t bytes = 0;
    for (const DeviceEstimate& device : estimate.devices) {
        for (const BufferEstimate& buffer : device.buffers) {
            bytes += buffer.owner == owner && buffer.component == component ? buffer.bytes : 0;
        }
    }
    return bytes;
}

TEST(DraftModel, TheDraftContextTakesTheTargetsSizeButItsOwnCacheTypesAndUbatch) {
    ServerSettings main = withDraft();
    main.draftModel.cacheTypeK = GgmlType::Q4_0;
    main.speculative.draftUbatch = 128;
    main.draftModel.gpuLayers = GpuLayers::fromText("7");
    main.loraAdapters = {{"adapter.gguf", 1.0}};
    const ServerSettings draft = draftContextSettings(main);
    EXPECT_EQ(draft.contextTokens, main.contextTokens);
    EXPECT_EQ(draft.parallelSlots, main.parallelSlots);
    EXPECT_EQ(draft.batchTokens, main.batchTokens);
    EXPECT_EQ(draft.flashAttention, main.flashAttention);
    EXPECT_EQ(draft.cacheTypeK, GgmlType::Q4_0); // -ctkd
    EXPECT_EQ(draft.cacheTypeV, GgmlType::F16);  // no -ctvd: f16, not the target's q8_0
    EXPECT_EQ(draft.ubatchTokens, 128u);
    EXPECT_EQ(draft.gpuLayers, main.draftModel.gpuLayers);
    EXPECT_TRUE(draft.speculative.types.empty());
    EXPECT_TRUE(draft.loraAdapters.empty());
    EXPECT_FALSE(loadsDraftModel(draft));
    main.speculative.draftUbatch = 0;
    EXPECT_EQ(draftContextSettings(main).ubatchTokens, 1024u); // the target's -ub
}

TEST(DraftModel, ItsBuffersAreTheDraftsOwnEstimateAddedToTheTargets) {
    const ModelInfo target = test::interpretedShape("qwen3moe.json");
    const ModelInfo draft = test::interpretedShape("qwen3.json");
    ServerSettings settings = withDraft();
    ServerSettings noDraft = settings;
    noDraft.draftModel = {};
    const auto alone = estimateMemory(target, noDraft);
    const auto draftAlone = estimateMemory(draft, draftContextSettings(settings));
    const auto both = estimateMemory(target, settings, {}, CompanionModels{{}, draft, std::nullopt});
    ASSERT_TRUE(alone.ok() && draftAlone.ok() && both.ok());
    for (const Component component :
         {Component::Model, Component::Kv, Component::Rs, Component::Output, Component::Compute}) {
        EXPECT_EQ(ownedBytes(*both, BufferOwner::DraftModel, component), draftAlone->totals.get(component))
            << componentName(component);
        EXPECT_EQ(both->totals.get(component),
                  alone->totals.get(component) + draftAlone->totals.get(component))
            << componentName(component);
    }
    ASSERT_TRUE(both->draft.has_value());
    EXPECT_EQ(both->draft->context, draftAlone->context);
    EXPECT_EQ(both->draft->kvCaches, draftAlone->kvCaches);
    EXPECT_EQ(both->draft->kvCaches.front().typeK, GgmlType::F16);
    EXPECT_EQ(both->kvCaches.front().typeK, GgmlType::Q8_0);
    EXPECT_EQ(both->draft->context.nOutputs, 2u); // one row per slot: the draft verifies nothing
    EXPECT_EQ(both->context.nOutputs, 2u * 4u);   // the target verifies 1 + draft.n_max per slot
}

TEST(DraftModel, PreparedModelsCarryTheDraftIntoEveryEstimate) {
    const ModelInfo target = test::interpretedShape("qwen3moe.json");
    const ModelInfo draft = test::interpretedShape("qwen3.json");
    ServerSettings settings = withDraft();
    const auto direct = estimateMemory(target, settings, {}, CompanionModels{{}, draft, std::nullopt});
    const auto prepared =
        estimateMemory(prepareModel(target, CompanionModels{{}, draft, std::nullopt}), settings);
    ASSERT_TRUE(direct.ok() && prepared.ok());
    EXPECT_EQ(*direct, *prepared);
}

TEST(DraftModel, AnUnreadDraftFileIsNamedInTheNotes) {
    const ModelInfo target = test::interpretedShape("qwen3.json");
    ServerSettings settings = withDraft();
    const auto estimate = estimateMemory(target, settings);
    ASSERT_TRUE(estimate.ok());
    EXPECT_FALSE(estimate->draft.has_value());
    EXPECT_EQ(ownedBytes(*estimate, BufferOwner::DraftModel, Component::Model), 0u);
    bool named = false;
    for (const std::string& note : estimate->notes) {
        named = named || note.find("draft model's file was not read") != std::string::npos;
    }
    EXPECT_TRUE(named);
}

TEST(DraftModel, TheDraftsOwnRefusalIsNamedAsTheDrafts) {
    const ModelInfo target = test::interpretedShape("qwen3.json");
    ServerSettings settings = withDraft();
    settings.cacheTypeK = GgmlType::F16;
    settings.cacheTypeV = GgmlType::F16;
    settings.flashAttention = FlashAttention::Off;
    settings.draftModel.cacheTypeV = GgmlType::Q8_0; // a quantized V cache needs flash attention
    const auto estimate = estimateMemory(target, settings, {}, CompanionModels{{}, target, std::nullopt});
    ASSERT_FALSE(estimate.ok());
    EXPECT_EQ(estimate.error().code, "settings.quantized-v-needs-fa");
    EXPECT_EQ(estimate.error().message.rfind("draft model: ", 0), 0u) << estimate.error().message;
}

} // namespace
} // namespace llamafit

#pragma once
// Test support for the sizing tests against real Vulkan runs (devicelimits_test.cpp,
// gpucompute_test.cpp): llama-server 0.7.0 (b11669) with Debian's ggml Vulkan backend on Mesa's
// lavapipe, the realistic shapes of tests/data/shapes cut to fewer blocks (its heap is 2 GiB).
#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace llamafit::test {

// A shape with its first `blocks` blocks (the lavapipe heap is 2 GiB).
inline ModelInfo shapeWithBlocks(const std::string& shape, std::uint32_t blocks) {
    auto spec = test::loadShape(shape);
    EXPECT_TRUE(spec.ok()) << shape;
    if (!spec.ok()) {
        return {};
    }
    std::uint64_t oldBlocks = 0;
    for (auto& [key, value] : spec.value().file.metadata) {
        if (key.ends_with(".block_count")) {
            oldBlocks = std::get<std::uint64_t>(value.data);
            value = GgufValue::fromUint(blocks);
        }
    }
    // Per-layer arrays (head_count_kv, feed_forward_length) keep their first `blocks` entries.
    for (auto& [key, value] : spec.value().file.metadata) {
        const GgufArray* array = value.array();
        if (array != nullptr && array->size() == oldBlocks && !key.starts_with("tokenizer.")) {
            GgufArray cut(array->elementType());
            for (std::size_t i = 0; i < blocks; ++i) {
                cut.append(array->elementAt(i));
            }
            value = GgufValue::fromArray(std::move(cut));
        }
    }
    std::erase_if(spec.value().file.tensors, [&](const GgufTensorInfo& t) {
        return t.name.rfind("blk.", 0) == 0 && std::stoul(t.name.substr(4)) >= blocks;
    });
    spec.value().file.rebuildIndex();
    auto file = test::ggufFileForSpec(spec.value());
    EXPECT_TRUE(file.ok()) << shape;
    auto model = file.ok() ? interpretModel(file.value()) : Result<ModelInfo>(file.error());
    EXPECT_TRUE(model.ok()) << shape << ": " << (model.ok() ? "" : model.error().message);
    return model.ok() ? model.value() : ModelInfo{};
}

// lavapipe as vulkaninfo reports it: maxStorageBufferRange 128 MiB, maxMemoryAllocationSize 2 GiB.
inline GpuDevice lavapipe() {
    GpuDevice gpu{"Vulkan0", 2048 * kMiB, Backend::Vulkan, false, std::nullopt};
    gpu.limits.maxStorageBufferRangeBytes = 128 * kMiB;
    gpu.limits.maxAllocationBytes = 2048 * kMiB;
    return gpu;
}

inline MemoryEstimate estimateWith(const ModelInfo& model, std::initializer_list<const char*> flags,
                                   const std::vector<GpuDevice>& gpus) {
    auto parsed = parseServerArgs(std::vector<std::string>(flags.begin(), flags.end()));
    EXPECT_TRUE(parsed.ok());
    if (!parsed.ok()) {
        return {};
    }
    auto estimate = estimateMemory(model, parsed.value().settings, gpus);
    EXPECT_TRUE(estimate.ok()) << (estimate.ok() ? "" : estimate.error().message);
    return estimate.ok() ? estimate.value() : MemoryEstimate{};
}

} // namespace llamafit::test

// The vision projector's buffers (core/sizing/projectorbuffers.h) against hand-worked figures:
// the warm-up image side per kind and token limit, and the weights of the generated projector
// shapes (tests/data/shapes/mmproj) summed tensor by tensor.

#include "core/common/units.h"
#include "core/model/projectorinfo.h"
#include "core/sizing/projectorbuffers.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ProjectorInfo projectorShape(const std::string& stem) {
    const auto spec = test::loadModelSpecFile(test::shapesDirectory() + "/mmproj/" + stem + ".json");
    EXPECT_TRUE(spec.ok()) << spec.error().message;
    const auto file = test::ggufFileForSpec(*spec);
    EXPECT_TRUE(file.ok()) << file.error().message;
    const auto info = interpretProjector(*file, stem + ".gguf");
    EXPECT_TRUE(info.ok()) << info.error().code << ": " << info.error().message;
    return *info;
}

TEST(ProjectorBuffers, QwenWarmupImageIs46TokensPerSideOrTheRootOfTheTokenLimit) {
    const ProjectorInfo qwen = projectorShape("qwen2vl-mmproj");
    ProjectorSetting setting;
    EXPECT_EQ(projectorWarmupImageSide(qwen, setting), 46u * 14u * 2u); // 1288
    setting.imageMaxTokens = 1024;
    EXPECT_EQ(projectorWarmupImageSide(qwen, setting), 32u * 28u); // 896
    setting.imageMaxTokens = 500;
    EXPECT_EQ(projectorWarmupImageSide(qwen, setting), 22u * 28u); // 616: floor(sqrt(500)) = 22
    setting.imageMaxTokens = 8192;
    EXPECT_EQ(projectorWarmupImageSide(qwen, setting), 1288u); // never above the default
    setting = {};
    setting.imageMinTokens = 1024;
    EXPECT_EQ(projectorWarmupImageSide(qwen, setting), 1288u);
}

TEST(ProjectorBuffers, GemmaWarmupImageIsItsFixedImageSize) {
    const ProjectorInfo gemma = projectorShape("gemma3-mmproj");
    ProjectorSetting setting;
    setting.imageMaxTokens = 64;
    EXPECT_EQ(projectorWarmupImageSide(gemma, setting), 896u);
    EXPECT_EQ(gemma.mergeSize, 4u);
    EXPECT_EQ(gemma.outputEmbeddingLength, 64u);
}

TEST(ProjectorBuffers, WeightsAreTheSumOfTheTensorsAndFollowTheOffloadSwitch) {
    const ProjectorInfo qwen = projectorShape("qwen2vl-mmproj");
    // Per block: 4 attention matrices 1280^2 f16 + 4 biases, 2 norms (w+b), up/down 1280x5120 f16
    // + biases; outside: 2 patch kernels 14*14*3*1280 f16, post-norm, mm.0 5120^2 f16 + bias,
    // mm.2 5120x64 f16 + bias.
    const std::uint64_t block =
        4 * (1280 * 1280 * 2 + 1280 * 4) + 4 * 1280 * 4 + 2 * 1280 * 5120 * 2 + 5120 * 4 + 1280 * 4;
    const std::uint64_t rest =
        2 * 14 * 14 * 3 * 1280 * 2 + 2 * 1280 * 4 + 5120 * 5120 * 2 + 5120 * 4 + 5120 * 64 * 2 + 64 * 4;
    EXPECT_EQ(qwen.weightBytes, 4 * block + rest);
    ServerSettings settings;
    GpuDevice vulkan;
    vulkan.name = "Vulkan0";
    vulkan.memoryBytes = 2048ull << 20;
    const std::vector<GpuDevice> gpus = {vulkan};
    EXPECT_EQ(projectorBuffers(qwen, settings, gpus).device, 0);
    settings.projector.offload = false;
    EXPECT_EQ(projectorBuffers(qwen, settings, gpus).device, -1);
    EXPECT_EQ(projectorBuffers(qwen, ServerSettings{}, {}).device, -1);
}

TEST(ProjectorBuffers, WithoutFlashAttentionTheScoresDominate) {
    const ProjectorInfo qwen = projectorShape("qwen2vl-mmproj");
    ServerSettings settings;
    settings.flashAttention = FlashAttention::Off;
    const auto off = projectorBuffers(qwen, settings, {});
    // kq and its in-place soft_max: 8464 patches squared, 16 heads, f32.
    const std::uint64_t scores = 8464ull * 8464ull * 16ull * 4ull;
    EXPECT_GT(off.computeBytes, scores);
    settings.flashAttention = FlashAttention::On;
    const auto on = projectorBuffers(qwen, settings, {});
    EXPECT_LT(on.computeBytes, scores / 10);
}

TEST(ProjectorInfo, RefusesATextModelAndAnUnknownKind) {
    const auto text = test::ggufFileForSpec(test::tinyModelSpec());
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(interpretProjector(*text, "tiny.gguf").error().code, "projector.not-projector");
    auto spec = test::loadModelSpecFile(test::shapesDirectory() + "/mmproj/gemma3-mmproj.json");
    ASSERT_TRUE(spec.ok());
    auto file = test::ggufFileForSpec(*spec);
    ASSERT_TRUE(file.ok());
    for (auto& [key, value] : file->metadata) {
        if (key == "clip.projector_type") {
            value = GgufValue::fromString("no_such_projector");
        }
    }
    file->rebuildIndex();
    EXPECT_EQ(interpretProjector(*file, "x.gguf").error().code, "projector.unknown-type");
    for (auto& [key, value] : file->metadata) {
        if (key == "clip.projector_type") {
            value = GgufValue::fromString("pixtral");
        }
    }
    file->rebuildIndex();
    EXPECT_EQ(interpretProjector(*file, "x.gguf").error().code, "projector.unsupported-type");
}

TEST(ProjectorInfo, RefusesAProjectorOfAnotherWidth) {
    const ProjectorInfo gemma = projectorShape("gemma3-mmproj");
    ModelInfo model;
    model.embeddingLength = 2048;
    const auto refused = checkProjector(model, gemma);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "projector.width-mismatch");
    EXPECT_NE(refused.error().message.find("(n_embd = 2048) and mmproj (n_embd = 64)"), std::string::npos);
    model.embeddingLength = 64;
    EXPECT_TRUE(checkProjector(model, gemma).ok());
}

} // namespace
} // namespace llamafit

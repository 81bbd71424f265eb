// The vision projector's buffers; see projectorbuffers.h for the rules and their sources.
#include "core/sizing/projectorbuffers.h"

#include "core/sizing/projectorgraph.h"

#include <algorithm>
#include <cmath>

namespace llamafit {
namespace {

// tools/mtmd/clip.cpp load_hparams for the Qwen-VL mergers: set_warmup_n_tokens(46*46).
constexpr std::uint32_t kQwenWarmupTokensPerSide = 46;

std::uint32_t floorSqrt(std::uint32_t n) {
    auto root = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(n)));
    while (std::uint64_t{root} * root > n) {
        --root;
    }
    while (std::uint64_t{root + 1} * (root + 1) <= n) {
        ++root;
    }
    return root;
}

void addBuffer(MemoryEstimate& est, int device, Component component, std::uint64_t bytes, SizeRule rule) {
    DeviceEstimate& target = est.devices[static_cast<std::size_t>(device + 1)];
    BufferEstimate buffer;
    buffer.bufferType = target.name;
    buffer.component = component;
    buffer.bytes = bytes;
    buffer.rule = std::move(rule);
    buffer.owner = BufferOwner::Projector;
    target.buffers.push_back(std::move(buffer));
    target.bytes.add(component, bytes);
    est.totals.add(component, bytes);
}

} // namespace

std::uint32_t projectorWarmupImageSide(const ProjectorInfo& projector, const ProjectorSetting& setting) {
    switch (projector.kind) {
    case ProjectorKind::Gemma3:
        return projector.imageSize;
    case ProjectorKind::Qwen2Vl: {
        std::uint32_t tokensPerSide = kQwenWarmupTokensPerSide;
        if (setting.imageMaxTokens && *setting.imageMaxTokens > 0) {
            tokensPerSide = std::min(tokensPerSide, floorSqrt(*setting.imageMaxTokens));
        }
        return tokensPerSide * projector.patchSize * projector.mergeSize;
    }
    }
    return projector.imageSize;
}

ProjectorBuffers projectorBuffers(const ProjectorInfo& projector, const ServerSettings& settings,
                                  const std::vector<GpuDevice>& gpus) {
    ProjectorBuffers buffers;
    buffers.warmupImageSide = projectorWarmupImageSide(projector, settings.projector);
    buffers.device = settings.projector.offload && !gpus.empty() ? 0 : -1;
    buffers.weightBytes = projector.weightBytes;
    buffers.computeBytes = projectorGraphBytes(projector, buffers.warmupImageSide,
                                               settings.flashAttention != FlashAttention::Off);
    return buffers;
}

Result<MemoryEstimate> withProjector(MemoryEstimate estimate, const ModelInfo& model,
                                     const ProjectorInfo& projector, const ServerSettings& settings,
                                     const std::vector<GpuDevice>& gpus) {
    if (auto fits = checkProjector(model, projector); !fits.ok()) {
        return fits.error();
    }
    const ProjectorBuffers buffers = projectorBuffers(projector, settings, gpus);
    if (static_cast<std::size_t>(buffers.device + 1) >= estimate.devices.size()) {
        return makeError("settings.bad-value", "the estimate has no device for the projector",
                         {Setting::Projector});
    }
    addBuffer(estimate, buffers.device, Component::Model, buffers.weightBytes,
              SizeRule{.id = SizeRuleId::ProjectorWeights});
    addBuffer(estimate, buffers.device, Component::Compute, buffers.computeBytes,
              SizeRule{.id = SizeRuleId::ProjectorCompute, .cells = buffers.warmupImageSide});
    estimate.notes.push_back("vision projector " + std::string(projectorKindName(projector.kind)) +
                             ": warm-up image " + std::to_string(buffers.warmupImageSide) + " x " +
                             std::to_string(buffers.warmupImageSide) + " px");
    return estimate;
}

} // namespace llamafit

#pragma once
// The vision projector's buffers (--mmproj), as llama-server 0.7.0 allocates them at start-up:
//  - weights: every tensor of the projector file read into one buffer of the projector's backend
//    (tools/mtmd/clip.cpp load_tensors), printed only as "load_hparams: model size: N MiB";
//  - compute: the warm-up reserves the graph of one square image (clip.cpp warmup ->
//    reserve_compute_meta: "<backend> compute buffer size = N MiB"), replayed by projectorgraph.h.
// The warm-up image: gemma3 always its clip.vision.image_size; qwen2vl_merger 46 x 46 merged
// tokens (clip.cpp set_warmup_n_tokens(46*46)), fewer when --image-max-tokens is below that:
// floor(sqrt(N)) tokens per side, each patch_size x merge pixels (measured on the real server:
// 1024 -> 896 px, 500 -> 616 px, 8192 -> 1288 px; --image-min-tokens does not change it).
// Flash attention: -fa off builds the graph without it (kq of n_patches^2 per head); on and auto
// with it, as the CPU backend supports it.
// Placement: with --no-mmproj-offload, or without GPUs, both buffers are "CPU"; otherwise clip.cpp
// takes the first GPU backend, and both are put on the first GPU given (measured only on the CPU).
// Used by the CLI's estimate and the recorded-run test; pure, bytes.
//
// Error codes: projector.width-mismatch (checkProjector).

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/model/projectorinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <vector>

namespace llamafit {

struct ProjectorBuffers {
    std::uint32_t warmupImageSide = 0; // pixels: "get_dummy_batch: warmup with image size = W x H"
    int device = -1;                   // -1 the host, else the GPU index
    std::uint64_t weightBytes = 0;
    std::uint64_t computeBytes = 0;
    bool operator==(const ProjectorBuffers&) const = default;
};

std::uint32_t projectorWarmupImageSide(const ProjectorInfo& projector, const ProjectorSetting& setting);

ProjectorBuffers projectorBuffers(const ProjectorInfo& projector, const ServerSettings& settings,
                                  const std::vector<GpuDevice>& gpus);

// Adds the projector's weight and compute buffers (owner Projector) to an estimate of `model`
// made with the same settings and GPUs; refuses a projector of another width as llama-server does.
Result<MemoryEstimate> withProjector(MemoryEstimate estimate, const ModelInfo& model,
                                     const ProjectorInfo& projector, const ServerSettings& settings,
                                     const std::vector<GpuDevice>& gpus);

} // namespace llamafit

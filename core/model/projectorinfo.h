#pragma once
// ProjectorInfo: a vision projector GGUF (--mmproj) as the sizing core needs it: its kind, the
// vision tower's dimensions the warm-up graph is built from, the text width it feeds, and its
// weights. Read from the file's header only, like ModelInfo. Used by the estimate
// (core/sizing/projectorbuffers.h) and by the CLI, which reads the file. Value type; bytes.
//
// Source: llama.cpp tools/mtmd/clip.cpp clip_model_loader (0.7.0, b11669): clip.has_vision_encoder
// must be true; clip.projector_type (or clip.vision.projector_type) names the kind; load_hparams
// reads clip.vision.{embedding_length, attention.head_count, feed_forward_length, block_count,
// projection_dim, attention.layer_norm_epsilon, image_size, patch_size}; "model size" is the sum of
// every tensor's ggml_nbytes (unpadded), the one weight figure the server prints.
//
// Error codes: projector.not-projector (no vision encoder: a text model or another GGUF),
// projector.unknown-type (a kind llama-server 0.7.0 does not load: "unknown projector type"),
// projector.unsupported-type (a kind 0.7.0 loads but LlamaFit does not size yet),
// projector.missing-key (a key load_hparams requires), projector.width-mismatch (checkProjector).

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/model/modelinfo.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llamafit {

// The projector kinds whose warm-up graph LlamaFit replays (core/sizing/projectorgraph.cpp).
enum class ProjectorKind {
    Gemma3,  // "gemma3": SigLIP at a fixed image size, 2-D average pooling, one projection
    Qwen2Vl, // "qwen2vl_merger": dynamic resolution, M-RoPE, 2x2 patch merger MLP
};

std::string_view projectorKindName(ProjectorKind kind); // the clip.projector_type spelling

struct ProjectorInfo {
    std::string path;
    ProjectorKind kind = ProjectorKind::Gemma3;
    std::uint32_t embeddingLength = 0;       // n_embd of the vision tower
    std::uint32_t headCount = 0;             // n_head
    std::uint32_t feedForwardLength = 0;     // n_ff
    std::uint32_t blockCount = 0;            // n_layer
    std::uint32_t imageSize = 0;             // clip.vision.image_size (pixels per side)
    std::uint32_t patchSize = 0;             // pixels per patch side
    std::uint32_t mergeSize = 1;             // n_merge: gemma3's pooling kernel, qwen's spatial merge
    std::uint32_t outputEmbeddingLength = 0; // n_mmproj_embd: the text model's n_embd it must match
    std::uint64_t weightBytes = 0;           // "load_hparams: model size": sum of ggml_nbytes
    bool operator==(const ProjectorInfo&) const = default;
};

Result<ProjectorInfo> interpretProjector(const GgufFile& file, const std::string& path);

// projector.width-mismatch when llama-server would refuse the pair (tools/mtmd/mtmd.cpp
// mtmd_context: "mismatch between text model (n_embd = %d) and mmproj (n_embd = %d)").
Result<bool> checkProjector(const ModelInfo& model, const ProjectorInfo& projector);

} // namespace llamafit
